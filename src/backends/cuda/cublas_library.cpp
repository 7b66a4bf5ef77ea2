#include "backends/cuda/cublas_library.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <type_traits>
#include <vector>

#include "backends/cuda/str_cat.h"
#include "caliber/errors.h"

namespace caliber::cuda {
namespace {

struct Loaded {
  CublasLibrary api;
  std::optional<std::string> unavailable;
};

// The first of `names` that loads (RTLD_LOCAL: nothing of it leaks into other libraries' lookups).
void* open_first(const char* env, const std::vector<std::string>& defaults, std::string* errors) {
  std::vector<std::string> names = defaults;
  if (const char* forced = std::getenv(env); forced && *forced) names = {forced};
  for (const std::string& n : names) {
    if (void* h = ::dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL)) return h;
    const char* why = ::dlerror();
    *errors += str_cat(errors->empty() ? "" : "; ", why ? why : n + ": unknown error");
  }
  return nullptr;
}

const Loaded& loaded() {
  static Loaded l;
  static std::once_flag once;
  std::call_once(once, [] {
    std::string errors;
    // cuBLASLt first: libcublas needs it.
    void* lt = open_first("CALIBER_CUBLASLT_LIBRARY", {"libcublasLt.so.13", "libcublasLt.so"}, &errors);
    void* blas = lt ? open_first("CALIBER_CUBLAS_LIBRARY", {"libcublas.so.13", "libcublas.so"}, &errors) : nullptr;
    if (!lt || !blas) {
      l.unavailable = str_cat("cuBLAS could not be loaded: ", errors,
                              " (set CALIBER_CUBLAS_LIBRARY and CALIBER_CUBLASLT_LIBRARY to their paths)");
      return;
    }
    std::string missing;
    const auto resolve = [&](void* handle, const char* name, auto& fn) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(::dlsym(handle, name));
      if (!fn) missing += str_cat(missing.empty() ? "" : ", ", name);
    };
#define CALIBER_CUBLAS_RESOLVE_BLAS(name) resolve(blas, #name, l.api.name);
#define CALIBER_CUBLAS_RESOLVE_LT(name) resolve(lt, #name, l.api.name);
    CALIBER_CUBLAS_FUNCTIONS(CALIBER_CUBLAS_RESOLVE_BLAS)
    CALIBER_CUBLASLT_FUNCTIONS(CALIBER_CUBLAS_RESOLVE_LT)
    resolve(blas, "cublasGemmEx", l.api.cublasGemmEx);
#undef CALIBER_CUBLAS_RESOLVE_BLAS
#undef CALIBER_CUBLAS_RESOLVE_LT
    if (!missing.empty()) l.unavailable = str_cat("cuBLAS was loaded but lacks ", missing);
  });
  return l;
}

}  // namespace

std::optional<std::string> cublas_unavailable_reason() { return loaded().unavailable; }

const CublasLibrary& cublas() {
  const Loaded& l = loaded();
  if (l.unavailable) throw ContractError(*l.unavailable);
  return l.api;
}

}  // namespace caliber::cuda
