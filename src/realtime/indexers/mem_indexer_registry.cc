// The process-wide registry of MemIndexer factories (RegisterMemIndexerFactory in mem_indexer.h)
// and of the table options they declare (mem_indexer_registry.h).
#include "realtime/indexers/mem_indexer_registry.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <string>

#include "freshet/realtime/mem_indexer.h"
#include "realtime/indexers/columnar_mem_indexer.h"
#include "realtime/indexers/spilling_mem_indexer.h"

namespace freshet::realtime {

namespace {

struct Registry {
  std::mutex mu;
  std::map<std::string, std::shared_ptr<MemIndexerFactory>> factories;
  std::map<std::string, std::vector<std::string>> options;  // by plugin
};

// Adds the rows to the option registry and records them under `plugin` (caller holds r.mu or
// owns `r` alone).
Status DeclareInto(Registry& r, const std::string& plugin, std::vector<meta::OptionDef> options) {
  if (plugin.empty()) return Status::Invalid("a MemIndexer plugin needs a non-empty name");
  std::vector<std::string>& names = r.options[plugin];
  for (meta::OptionDef& row : options) {
    if (!row.name.starts_with("realtime.")) {
      return Status::Invalid("option '", row.name, "' of MemIndexer plugin '", plugin,
                             "' must start with 'realtime.'");
    }
    row.owner = "realtime:" + plugin;
    row.origin = "freshet";
    row.check = meta::OptionCheck::kWrite;
    std::string name = row.name;
    FRESHET_RETURN_NOT_OK(meta::OptionRegistry::Global().Register(std::move(row)));
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  return Status::OK();
}

// Built on first use, with the built-in plugins, so that registering from a static initializer
// of another translation unit works whatever the initialization order. Never destroyed: factories
// may be looked up while other statics are torn down at exit.
Registry& GetRegistry() {
  static Registry* registry = [] {
    auto* r = new Registry;
    for (auto factory : {MakeColumnarMemIndexerFactory(), MakeIndexedMemIndexerFactory(),
                         MakeSpillingMemIndexerFactory()}) {
      r->factories.emplace(factory->name(), std::move(factory));
    }
    // The built-in rows are valid; a failure here is a bug the registry tests catch.
    (void)DeclareInto(*r, "spilling", SpillingMemIndexerOptions());
    return r;
  }();
  return *registry;
}

// The built-in plugins' options are in the option registry from the start, so that a table is
// checked (and `freshet inspect` lists them) before any real-time table is opened.
[[maybe_unused]] const bool kBuiltinsRegistered = (GetRegistry(), true);

}  // namespace

void EnsureBuiltinMemIndexers() { GetRegistry(); }

Status RegisterMemIndexerFactory(std::shared_ptr<MemIndexerFactory> factory) {
  if (factory == nullptr) return Status::Invalid("cannot register a null MemIndexer factory");
  std::string name = factory->name();
  if (name.empty()) return Status::Invalid("a MemIndexer factory needs a non-empty name");
  Registry& registry = GetRegistry();
  std::lock_guard lock(registry.mu);
  if (!registry.factories.emplace(name, std::move(factory)).second) {
    return Status::AlreadyExists("a MemIndexer factory named '", name, "' is registered already");
  }
  return Status::OK();
}

Status RegisterMemIndexerFactory(std::shared_ptr<MemIndexerFactory> factory,
                                 std::vector<meta::OptionDef> options) {
  if (factory == nullptr) return Status::Invalid("cannot register a null MemIndexer factory");
  std::string name = factory->name();
  FRESHET_RETURN_NOT_OK(RegisterMemIndexerFactory(std::move(factory)));
  return DeclareMemIndexerOptions(name, std::move(options));
}

Status DeclareMemIndexerOptions(const std::string& plugin, std::vector<meta::OptionDef> options) {
  Registry& registry = GetRegistry();
  std::lock_guard lock(registry.mu);
  return DeclareInto(registry, plugin, std::move(options));
}

std::vector<std::string> MemIndexerOptionNames(const std::string& plugin) {
  Registry& registry = GetRegistry();
  std::lock_guard lock(registry.mu);
  auto it = registry.options.find(plugin);
  return it == registry.options.end() ? std::vector<std::string>() : it->second;
}

Status CheckMemIndexerOptions(const std::string& plugin, const meta::Options& options) {
  std::map<std::string, std::vector<std::string>> declared;
  {
    Registry& registry = GetRegistry();
    std::lock_guard lock(registry.mu);
    declared = registry.options;
  }
  for (const auto& [owner, names] : declared) {
    for (const std::string& name : names) {
      if (!meta::FindOption(options, name)) continue;
      if (owner != plugin) {
        return Status::Invalid("table option '", name, "' belongs to the MemIndexer plugin '",
                               owner, "', but the table's realtime.mem-indexer is '", plugin,
                               "'; remove the option or use that plugin");
      }
    }
  }
  return meta::OptionRegistry::Global().Validate(options, meta::OptionCheck::kWrite,
                                                 "realtime:" + plugin);
}

Result<std::shared_ptr<MemIndexerFactory>> FindMemIndexerFactory(const std::string& name) {
  Registry& registry = GetRegistry();
  std::lock_guard lock(registry.mu);
  auto it = registry.factories.find(name);
  if (it != registry.factories.end()) return it->second;
  std::string known;
  for (const auto& [registered, factory] : registry.factories) {
    known += (known.empty() ? "" : ", ") + registered;
  }
  return Status::NotFound("no MemIndexer plugin named '", name,
                          "' (table option realtime.mem-indexer); registered: ", known);
}

}  // namespace freshet::realtime
