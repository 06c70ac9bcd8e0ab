// The embedded page's bytes (written at build time by cmake/EmbedFile.cmake from serve/web/index.html).
#include "heptapod/serve/web_page.h"

#include <cstddef>

namespace heptapod {

extern const char kWebPage[];
extern const std::size_t kWebPage_size;

std::string_view web_page() { return {kWebPage, kWebPage_size}; }

}  // namespace heptapod
