// The JSON schemas of schemas/*.json, compiled into caliber (the build embeds them), so that
// `caliber validate` needs no installed data files.
#pragma once

#include <string_view>
#include <vector>

namespace caliber {

struct EmbeddedSchema {
  std::string_view name;  // file name, e.g. "shape_ledger.v1.schema.json"
  std::string_view text;
};

const std::vector<EmbeddedSchema>& embedded_schemas();

}  // namespace caliber
