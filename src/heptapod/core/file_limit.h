// The process's limit on open files: a server holding thousands of connections, or a load generator opening
// them, needs as many descriptors as connections.
#pragma once

namespace heptapod {

// Raises the soft RLIMIT_NOFILE to the hard limit (often 1024 -> 1048576); does nothing where it cannot.
void raise_open_file_limit();

}  // namespace heptapod
