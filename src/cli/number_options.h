// Numeric options are read by caliber's number parser (core/number_text.h), not CLI11's: CLI11
// saturates an integer that overflows (--limit 99999999999999999999 became INT64_MAX), reads
// "-1" as an unsigned 18446744073709551615, "010" as 8 and "0x10" as 16, and takes "inf" and
// "nan" as numbers.
#pragma once

#include <CLI/CLI.hpp>

namespace caliber::cli {

// Adds the strict check to every integer, unsigned and floating-point option of `app` and of
// its subcommands: base 10, in range of the type, finite.
void require_strict_numbers(CLI::App& app);

}  // namespace caliber::cli
