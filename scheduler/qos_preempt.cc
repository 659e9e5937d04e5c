// The QOS in a Slurm job's priority and in preemption (scheduler/config.h SlurmClusterConfig):
// - priority/multifactor PriorityWeightQOS (`priority_weight_qos`): a job's QOS factor is its
//   QOS priority normalised by the highest QOS priority of the cluster (slurmctld's
//   qos->usage->norm_priority), times the weight, rounded down. Pending jobs are ordered by
//   PriorityTier, then by it, then by submit order (PendingKey). A QOS the cluster does not list
//   (e.g. "normal" unless redefined) has priority 0.
// - PreemptType=preempt/qos (`preempt_type`): a running job may be preempted for a pending one
//   when the preemptor's QOS lists the running job's QOS in `preempt` (preempt/qos
//   _qos_preemptable), whatever their partitions' PriorityTier; the candidates are walked in the
//   order (QOS priority << 16) + node count ascending (its _gen_job_prio), then job id. The
//   victim's PreemptMode is its QOS's preempt_mode, else its partition's (slurm_job_preempt_mode);
//   OFF makes it no candidate. QOS preempt modes SUSPEND and GANG are not modelled: REQUEUE.
#include "scheduler/world_internal.h"

#include <algorithm>
#include <string_view>

namespace schedemu {

namespace {

const SlurmQosConfig* Find(const SlurmClusterConfig& c, std::string_view name) {
  for (const SlurmQosConfig& q : c.qos) {
    if (q.name == name) return &q;
  }
  return nullptr;
}

std::string_view QosName(const JobRequest& r) {
  return r.qos.empty() ? std::string_view("normal") : std::string_view(r.qos);
}

}  // namespace

bool QosPolicy::ByQos(const World& w, int cluster) {
  return w.clusters()[cluster].config.preempt_type == "preempt/qos";
}

int64_t QosPolicy::PriorityOf(const World& w, int cluster, const JobRequest& r) {
  const SlurmClusterConfig& c = w.clusters()[cluster].config;
  if (c.priority_weight_qos <= 0) return 0;
  int64_t top = 0;
  for (const SlurmQosConfig& q : c.qos) top = std::max(top, q.priority);
  const SlurmQosConfig* q = Find(c, QosName(r));
  if (q == nullptr || top <= 0) return 0;
  return static_cast<int64_t>(static_cast<double>(c.priority_weight_qos) *
                              (static_cast<double>(q->priority) / static_cast<double>(top)));
}

bool QosPolicy::MayPreempt(const World& w, const Job& preemptor, const Job& victim) {
  const SlurmClusterConfig& c = w.clusters()[preemptor.cluster].config;
  const SlurmQosConfig* q = Find(c, QosName(preemptor.request));
  if (q == nullptr) return false;
  const std::string_view vq = QosName(victim.request);
  return std::find(q->preempt.begin(), q->preempt.end(), vq) != q->preempt.end();
}

int QosPolicy::PreemptOrder(const World& w, const Job& victim) {
  const SlurmQosConfig* q = Find(w.clusters()[victim.cluster].config, QosName(victim.request));
  return q == nullptr ? 0 : static_cast<int>(std::min<int64_t>(q->priority, 0xffff));
}

PreemptMode QosPolicy::ModeOf(const World& w, const Job& j) {
  const PreemptMode part = w.clusters()[j.cluster].partitions[j.partition].config.preempt_mode;
  if (!ByQos(w, j.cluster)) return part;
  const SlurmQosConfig* q = Find(w.clusters()[j.cluster].config, QosName(j.request));
  if (q == nullptr || q->preempt_mode.empty()) return part;
  if (q->preempt_mode == "CANCEL") return PreemptMode::kCancel;
  if (q->preempt_mode == "OFF") return PreemptMode::kOff;
  return PreemptMode::kRequeue;  // REQUEUE; SUSPEND and GANG are not modelled
}

}  // namespace schedemu
