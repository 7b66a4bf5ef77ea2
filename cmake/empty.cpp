// libcaliber.so is the static core linked whole (cmake/libraries.cmake); a target needs a source.
