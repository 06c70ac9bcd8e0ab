// The checks of a batch queue's options (the queue itself is a template: serve/batch_queue.h).
#include "heptapod/serve/batch_queue.h"

namespace heptapod {

void validate(const QueueOptions& o) {
  require(o.max_batch_sentences > 0, "request queue: max_batch_sentences must be positive");
  require(o.max_batch_requests >= 0, "request queue: max_batch_requests must not be negative");
  require(o.max_queued_sentences > 0, "request queue: max_queued_sentences must be positive");
  require(o.max_wait.count() >= 0, "request queue: max_wait must not be negative");
}

}  // namespace heptapod
