// Directories a command created for its output (--out), kept so that a command refused after
// creating them leaves no empty folder behind: a refused command writes nothing, not even a
// directory that looks like the start of a run.
#pragma once

#include <string>
#include <system_error>

namespace caliber {

// Creates `directory` and its missing parents, noting each one this call made. Throws
// std::filesystem::filesystem_error like std::filesystem::create_directories.
void create_output_directories(const std::string& directory);
// The same, with the error in `ec` instead of an exception.
void create_output_directories(const std::string& directory, std::error_code& ec);
// The same for a command's output option: UsageError "<option> <directory>: cannot create it: ...".
void create_output_directories(const std::string& directory, const std::string& option);

// Removes the directories noted by create_output_directories that are still empty, deepest
// first; what holds a file stays. Called when a command ends with an error.
void remove_empty_created_directories();

}  // namespace caliber
