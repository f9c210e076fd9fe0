// The library side of the MemIndexer plugin registry (RegisterMemIndexerFactory in
// include/freshet/realtime/mem_indexer.h): plugins that declare the table options they read.
//
// A plugin's options become rows of the option registry (meta/options/option_registry.h,
// docs/options.md) owned by "realtime:<plugin>": an invalid value is refused naming the option and
// its accepted values when a table is created or opened for writing, `freshet inspect` lists them
// with their defaults, and the plugin reads typed values with meta::Get*Option.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "freshet/realtime/mem_indexer.h"
#include "meta/options/option_registry.h"
#include "meta/schema/table_schema.h"

namespace freshet::realtime {

// Declares the table options of plugin `plugin`. Each name must start with "realtime."; the
// rows' owner, origin and check are set here (owner "realtime:<plugin>", checked when a table is
// created or opened for writing). Declaring the same rows again is OK; a name another plugin or
// layer declared is AlreadyExists.
Status DeclareMemIndexerOptions(const std::string& plugin, std::vector<meta::OptionDef> options);

// RegisterMemIndexerFactory, with the options the plugin reads.
Status RegisterMemIndexerFactory(std::shared_ptr<MemIndexerFactory> factory,
                                 std::vector<meta::OptionDef> options);

// The names of the options `plugin` declared (empty when it declared none).
std::vector<std::string> MemIndexerOptionNames(const std::string& plugin);

// For a table whose `realtime.mem-indexer` is `plugin`: parses the options the plugin declared,
// and refuses options another plugin declared (the table would silently ignore them).
Status CheckMemIndexerOptions(const std::string& plugin, const meta::Options& options);

// Makes sure the built-in plugins ("columnar", "indexed", "spilling") and their options are
// registered (they are from the first use of the registry on; static initializers need not wait for
// it).
void EnsureBuiltinMemIndexers();

}  // namespace freshet::realtime
