#pragma once
// The other end of sim/sweep/worker_pool.h: `trainsim sweep --point-worker` reads one
// request per line on stdin (a JSON object: "args", a trainsim command line, and "stderr",
// the file the point's messages go to), runs it in this process with `run`, and answers
// "TAG CODE" on fd 3, where TAG counts the requests from 0 and CODE is the exit code the
// command line would have had as a process of its own. It returns at the end of its input,
// or after a point that a signal interrupted.
#include <functional>
#include <string>
#include <vector>

namespace trainsim {

int serve_points(const std::function<int(std::vector<std::string>)>& run);

}  // namespace trainsim
