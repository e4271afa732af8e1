#pragma once
// The pages of report.html, one per kind of results directory (sim/report/html/report.h
// lists them): each reads the directory's files and lays out its sections.
#include "sim/report/html/html_page.h"
#include "sim/report/html/results_dir.h"

namespace trainsim {

HtmlPage run_page(const ResultsDir& dir);      ///< run, shape-only and train
HtmlPage system_page(const ResultsDir& dir);   ///< a pipeline over a system of devices
HtmlPage hype_page(const ResultsDir& dir);     ///< Hype-training placement
HtmlPage compare_page(const ResultsDir& dir);  ///< trainsim compare
HtmlPage sweep_page(const ResultsDir& dir);    ///< trainsim sweep
HtmlPage replay_page(const ResultsDir& dir);   ///< trainsim replay: Chakra traces on a system

}  // namespace trainsim
