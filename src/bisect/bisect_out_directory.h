// The directory caliber bisect writes into: runs/<sha12> (each commit's results), logs/ (each
// build's and run's output), worktree/ (while it runs) and bisect.json.
#pragma once

#include <optional>
#include <string>

namespace caliber::bisect {

// The absolute path of --out, created when missing; UsageError when it exists and is not an
// empty directory (an earlier bisect's runs must not pass for this one's). Without --out, a new
// directory caliber-bisect-XXXXXX under $TMPDIR (else /tmp), kept after the bisect.
std::string prepare_out_directory(const std::optional<std::string>& out);

}  // namespace caliber::bisect
