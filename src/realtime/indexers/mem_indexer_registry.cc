// The process-wide registry of MemIndexer factories (RegisterMemIndexerFactory in mem_indexer.h).
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
};

// Built on first use, with the built-in plugins, so that registering from a static initializer
// of another translation unit works whatever the initialization order. Never destroyed: factories
// may be looked up while other statics are torn down at exit.
Registry& GetRegistry() {
  static Registry* registry = [] {
    auto* r = new Registry;
    for (auto factory : {MakeColumnarMemIndexerFactory(), MakeSpillingMemIndexerFactory()}) {
      r->factories.emplace(factory->name(), std::move(factory));
    }
    return r;
  }();
  return *registry;
}

}  // namespace

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
