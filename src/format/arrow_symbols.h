// Where the dynamic linker binds the Arrow functions that freshet replaces for Parquet.
//
// Why: libparquet calls a few libarrow functions through the dynamic linker (page CRCs, the codec
// factory), and freshet defines faster versions of them (parquet_page_crc.h, zstd_codec.h). A
// replacement sometimes needs Arrow's own definition (to delegate what it does not replace), and
// tests and diagnostics need to know which definition a program actually uses.
#pragma once

namespace freshet::format {

// Arrow's own definition of the function with mangled name `symbol`, looked up in libarrow itself
// rather than in the process's lookup order (where freshet's replacement may come first); null
// when libarrow or the symbol cannot be found.
void* ArrowsOwnDefinition(const char* symbol);

// True when the process's lookup order binds `symbol` to a definition in the object (program or
// shared library) that contains `own`.
bool BoundToObjectOf(const char* symbol, const void* own);

}  // namespace freshet::format
