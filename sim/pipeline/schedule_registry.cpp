#include "sim/core/named_registry.h"
#include "sim/pipeline/schedule.h"
#include "sim/pipeline/schedules/schedules.h"

namespace trainsim {

const std::vector<const Schedule*>& schedules() {
  static const std::vector<const Schedule*> all{&gpipe_schedule(),       &one_f_one_b_schedule(),
                                                &interleaved_schedule(), &zero_bubble_h1_schedule(),
                                                &chimera_schedule(),     &custom_schedule()};
  return all;
}

const Schedule& schedule_named(const std::string& name) {
  return registry_get(schedules(), name, "schedule");
}

ScheduleParams schedule_params(const PipelineSpec& p, int devices) {
  return {devices / p.replicas, p.micro_batches, p.chunks, p.orders};
}

PipelineLayout straight_layout(const ScheduleParams& p) {
  if (p.chunks != 1)
    throw UserError("pipeline.chunks is only for the interleaved schedule (got " +
                    std::to_string(p.chunks) + ")");
  PipelineLayout l;
  l.devices = p.devices;
  l.stages = p.devices;
  l.placement.emplace_back();
  for (int s = 0; s < p.devices; ++s) l.placement[0].push_back(s);
  l.micro_pipe.assign(static_cast<std::size_t>(p.micro_batches), 0);
  return l;
}

}  // namespace trainsim
