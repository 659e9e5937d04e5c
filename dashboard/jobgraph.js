// Slurm job arrays folded and dependencies drawn, for the dashboard's job table and job panel.
// Pure functions over the control API's job records (GET /emulator/v1/state .jobs): a Slurm job
// has `cluster`, `job_id`, and when it is an array task `array_job_id`, `array_task_id`,
// `array_folded` (still folded under the array's record); `dependency_spec` is the dependency as
// submitted ("afterok:12,afterany:13_2"), `dependency` what is still open, as slurmctld shows it
// ("afterok:12(unfulfilled)", "afterok:12(failed)", "" once satisfied).
//
// DOM hooks for tests: [data-array-row="cluster/N"] (data-tasks, data-open, data-states),
// [data-array-member="cluster/N"] on the rows of an open array, [data-dep-graph] (data-job) with
// one [data-dep-edge="FROM->TO"] per edge (data-type, data-status: satisfied | unfulfilled |
// failed) and one [data-dep-node] per job or array drawn.

const SVG = "http://www.w3.org/2000/svg";

export const arrayKey = (j) => `${j.cluster}/${j.array_job_id}`;

// The jobs table's rows in order: a job, or an array (its header, then its members when open).
// `jobs` are the rows to show (newest first); `all` every job, to count an array's tasks
// (folded ones included).
export function foldArrays(jobs, all, open) {
  const byArray = new Map();
  for (const j of all) {
    if (j.dialect !== "slurm" || !j.array_job_id) continue;
    const k = arrayKey(j);
    if (!byArray.has(k)) byArray.set(k, []);
    byArray.get(k).push(j);
  }
  const out = [], seen = new Set();
  for (const j of jobs) {
    if (j.dialect !== "slurm" || !j.array_job_id) { out.push({ job: j }); continue; }
    const k = arrayKey(j);
    if (seen.has(k)) continue;
    seen.add(k);
    const tasks = byArray.get(k) || [j];
    const members = jobs.filter((x) => x.dialect === "slurm" && x.array_job_id && arrayKey(x) === k)
      .sort((a, b) => (a.array_task_id ?? -1) - (b.array_task_id ?? -1));
    const states = {};
    for (const t of tasks) states[t.state] = (states[t.state] || 0) + 1;
    out.push({ array: k, arrayJobId: j.array_job_id, tasks, states, open: open.has(k) });
    if (open.has(k)) for (const m of members) out.push({ job: m, member: k });
  }
  return out;
}

// "afterok:12:13?afterany:14_2(failed)" -> [{type, ref, status}] (status from the open text).
export function parseDependency(spec, open) {
  const terms = [];
  for (const part of (spec || "").split(/[,?]/)) {
    const m = part.match(/^(\w+)(?::(.*))?$/);
    if (!m) continue;
    const ids = (m[2] || "").split(":").filter(Boolean).map((x) => x.replace(/\+\d+$/, ""));
    if (m[1] === "singleton") continue;
    for (const ref of ids) terms.push({ type: m[1], ref, status: "satisfied" });
  }
  const open_ = new Map();  // "type:ref" -> status, from the text slurmctld shows
  for (const part of (open || "").split(/[,?]/)) {
    const m = part.match(/^(\w+):([\d_]+)(?:\((\w+)\))?$/);
    if (m) open_.set(`${m[1]}:${m[2]}`, m[3] || "satisfied");
  }
  for (const t of terms) t.status = open_.get(`${t.type}:${t.ref}`) || "satisfied";
  return terms;
}

// What a dependency reference names in one cluster: an array (every task), one task, or a job.
function resolve(ref, cluster, all) {
  const [id, task] = ref.split("_").map(Number);
  const mine = all.filter((j) => j.dialect === "slurm" && j.cluster === cluster);
  if (task !== undefined && !Number.isNaN(task)) {
    const t = mine.find((j) => j.array_job_id === id && j.array_task_id === task);
    return t ? { key: `job:${t.id}`, label: `${id}_${task}`, job: t } : { key: `ref:${ref}`, label: ref };
  }
  const tasks = mine.filter((j) => j.array_job_id === id);
  if (tasks.length) return { key: `array:${cluster}/${id}`, label: `${id}_[${tasks.length} tasks]`, job: tasks[0], tasks };
  const j = mine.find((x) => x.job_id === id);
  return j ? { key: `job:${j.id}`, label: String(id), job: j } : { key: `ref:${ref}`, label: ref };
}

const nodeOf = (j) => (j.array_job_id ? { key: `job:${j.id}`, label: `${j.array_job_id}_${j.array_task_id}`, job: j }
  : { key: `job:${j.id}`, label: String(j.job_id), job: j });

// Upstream (what `job` waits on) and downstream (who waits on `job`, or on its array).
export function dependencyEdges(job, all) {
  const me = nodeOf(job);
  const up = parseDependency(job.dependency_spec, job.dependency).map((t) => ({
    from: resolve(t.ref, job.cluster, all), to: me, type: t.type, status: t.status }));
  const down = [];
  const mineRefs = new Set([String(job.job_id)]);
  if (job.array_job_id) {
    mineRefs.add(String(job.array_job_id));
    mineRefs.add(`${job.array_job_id}_${job.array_task_id}`);
  }
  const seenArrays = new Set();
  for (const o of all) {
    if (o.dialect !== "slurm" || o.cluster !== job.cluster || !o.dependency_spec || o.id === job.id) continue;
    if (o.array_job_id) {  // one edge per dependent array
      const k = arrayKey(o);
      if (seenArrays.has(k)) continue;
      seenArrays.add(k);
    }
    for (const t of parseDependency(o.dependency_spec, o.dependency)) {
      if (!mineRefs.has(t.ref)) continue;
      const to = o.array_job_id ? resolve(String(o.array_job_id), o.cluster, all) : nodeOf(o);
      down.push({ from: t.ref.includes("_") || !job.array_job_id ? me : resolve(t.ref, job.cluster, all),
        to, type: t.type, status: t.status });
    }
  }
  return { me, up, down };
}

function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) el.setAttribute(k, String(v));
  for (const c of children) if (c) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

const STATUS_COLOR = { satisfied: "#2ca02c", unfulfilled: "#888", failed: "#d62728" };

// The job's dependency graph: upstream | the job | downstream, one arrow per term, coloured by
// whether it is satisfied, still open or failed. `onPick(job)` selects a drawn job.
export function dependencyGraph(job, all, stateOf, onPick) {
  const { me, up, down } = dependencyEdges(job, all);
  if (!up.length && !down.length) return null;
  const cols = [[...new Map(up.map((e) => [e.from.key, e.from])).values()], [me],
    [...new Map(down.map((e) => [e.to.key, e.to])).values()]];
  const W = 250, BW = 120, BH = 26, GAP = 12;
  const rows = Math.max(...cols.map((c) => c.length), 1);
  const height = rows * (BH + GAP) + GAP;
  const pos = new Map();
  cols.forEach((c, ci) => c.forEach((n, ri) => {
    const y = GAP + ri * (BH + GAP) + (rows - c.length) * (BH + GAP) / 2;
    pos.set(n.key + "@" + ci, { x: 8 + ci * W, y, n });
  }));
  const g = svg("svg", { width: 8 + 2 * W + BW + 8, height, class: "dep-graph", "data-dep-graph": "", "data-job": job.id });
  g.append(svg("defs", {}, svg("marker", { id: "dep-arrow", viewBox: "0 0 8 8", refX: 8, refY: 4, markerWidth: 7, markerHeight: 7, orient: "auto" },
    svg("path", { d: "M0,0 L8,4 L0,8 z", fill: "#666" }))));
  const edge = (a, b, e) => {
    const x1 = a.x + BW, y1 = a.y + BH / 2, x2 = b.x, y2 = b.y + BH / 2;
    const id = `${a.n.key}->${b.n.key}`;
    g.append(svg("g", { "data-dep-edge": id, "data-type": e.type, "data-status": e.status },
      svg("path", { d: `M${x1},${y1} C${x1 + 30},${y1} ${x2 - 30},${y2} ${x2},${y2}`, fill: "none",
        stroke: STATUS_COLOR[e.status] || "#888", "stroke-width": 2, "stroke-dasharray": e.status === "unfulfilled" ? "4 3" : null,
        "marker-end": "url(#dep-arrow)" }),
      svg("text", { x: (x1 + x2) / 2, y: (y1 + y2) / 2 - 4, "text-anchor": "middle", class: "dep-label" }, `${e.type} (${e.status})`)));
  };
  for (const e of up) edge(pos.get(e.from.key + "@0"), pos.get(me.key + "@1"), e);
  for (const e of down) edge(pos.get(me.key + "@1"), pos.get(e.to.key + "@2"), e);
  for (const p of pos.values()) {
    const st = p.n.tasks ? [...new Set(p.n.tasks.map((t) => t.state))].join("/") : p.n.job ? stateOf(p.n.job) : "?";
    const box = svg("g", { "data-dep-node": p.n.key, class: p.n.job ? "dep-node pick" : "dep-node" },
      svg("rect", { x: p.x, y: p.y, width: BW, height: BH, rx: 5, class: p.n === me ? "dep-me" : "" }),
      svg("text", { x: p.x + 6, y: p.y + 11 }, p.n.label),
      svg("text", { x: p.x + 6, y: p.y + 22, class: "dep-state" }, st));
    if (p.n.job && p.n !== me) box.addEventListener("click", () => onPick(p.n.job));
    g.append(box);
  }
  return g;
}
