// The progress bar's line: it fits the width it is given (so a redraw never wraps and leaves
// a line behind), and says what it can in that width.
#include <catch2/catch.hpp>

#include "sim/run/progress_bar.h"

using namespace trainsim;

TEST_CASE("The progress line never exceeds the width it is given", "[progress]") {
  const std::string labels[] = {"", "epoch 1/5", "variant 12/16 adagp-efficient-rs epoch 90/90"};
  const std::string extras[] = {"", "loss 0.3682 acc 88.70% | 8212786 cycles",
                                std::string(300, 'x')};
  for (int width = 0; width <= 200; ++width)
    for (const auto& label : labels)
      for (const auto& extra : extras)
        for (std::int64_t done : {0, 1, 267, 534})
          for (double eta : {-1.0, 0.0, 59.6, 7322.0}) {
            const std::string line = render_progress(label, done, 534, 12.5, eta, extra, width);
            INFO("width " << width << ": '" << line << "'");
            CHECK(static_cast<int>(line.size()) <= std::max(0, width - 1));
          }
}

TEST_CASE("The progress line shows bar, percentage, elapsed time and ETA when there is room",
          "[progress]") {
  const std::string line =
      render_progress("epoch 2/5", 267, 534, 65, 130, "loss 0.3682 acc 88.70%", 100);
  CHECK(line.rfind("epoch 2/5 [", 0) == 0);
  CHECK(line.find("#") != std::string::npos);
  CHECK(line.find(" 50%") != std::string::npos);
  CHECK(line.find("1:05 ETA 2:10") != std::string::npos);
  CHECK(line.find("| loss 0.3682 acc 88.70%") != std::string::npos);
  // Narrower: the extra text goes first, then the times; the percentage stays.
  const std::string narrow = render_progress("epoch 2/5", 267, 534, 65, 130, "loss 0.3682", 40);
  CHECK(narrow.find("loss") == std::string::npos);
  CHECK(narrow.find(" 50%") != std::string::npos);
  const std::string tiny = render_progress("epoch 2/5", 267, 534, 65, 130, "", 18);
  CHECK(tiny.find("[") == std::string::npos);
  CHECK(tiny.find("ETA") == std::string::npos);
  CHECK(tiny.find(" 50%") != std::string::npos);
  // Before any progress the ETA is unknown, not zero.
  CHECK(render_progress("e", 0, 10, 0, -1, "", 80).find("ETA -:--") != std::string::npos);
}

TEST_CASE("Durations print as m:ss or h:mm:ss", "[progress]") {
  CHECK(format_duration(0) == "0:00");
  CHECK(format_duration(7.4) == "0:07");
  CHECK(format_duration(754) == "12:34");
  CHECK(format_duration(3723) == "1:02:03");
  CHECK(format_duration(-3) == "0:00");
}

TEST_CASE("The ETA is unknown before any progress and counts only this process's work",
          "[progress]") {
  const EtaClock fresh(0, 4);
  CHECK(fresh.eta(0, 0.0) < 0);
  CHECK(fresh.eta(3, 1.0) == Approx(0).margin(1e-9));
  const EtaClock resumed(2, 4);  // epochs 1-2 done by an earlier process
  CHECK(resumed.eta(2, 0.0) < 0);
}
