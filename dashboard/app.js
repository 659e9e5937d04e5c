// schedemu live dashboard. Plain ES module, no dependencies. Talks only to the public control API
// (/emulator/v1/...) plus the dashboard's own /dashboard-api/examples listing; "Play" drives an
// example's timeline through the same public APIs a user would call.
//
// Stable DOM hooks for tests: [data-gpu="node/index"] (data-job, data-job-ref, data-queue,
// data-gpu-state), [data-job-row] (data-state, data-dialect, data-tenant, data-preempted-by),
// [data-bar] (timeline runs, one per node and contiguous GPU range: data-job, data-bar-node,
// data-bar-gpus, data-bar-gpu (first GPU), data-run, data-preempted-by), [data-tl-node] (one
// timeline row per node), [data-tl-idle] (a collapsed group of idle nodes: data-count),
// [data-cap-idle] (the same in the capacity panel), [data-queue-row], [data-partition-row],
// [data-borrowed="allocation"], [data-clock] (data-now, data-mode, data-speed), [data-conn],
// [data-job-panel] (data-job), #example (data-loaded: the loaded scenario's name), #timeline
// (data-render-ms: the last full render's time).

import { foldArrays, dependencyGraph } from "./jobgraph.js";

const API = "/emulator/v1";
const $ = (sel, root = document) => root.querySelector(sel);

// ?token=T (or #token=T) for `serve --control-token T`; kept for the tab's lifetime.
const params = new URLSearchParams(location.search || location.hash.slice(1));
if (params.get("token")) sessionStorage.setItem("schedemu-token", params.get("token"));
const TOKEN = sessionStorage.getItem("schedemu-token") || "";

const ui = {
  state: null,
  events: [],
  lastSeq: 0,
  generation: undefined,  // GET events' X-Schedemu-World-Generation: the world lastSeq counts in
  examples: [],
  selectedJob: null,
  jobView: null,
  gpuSeen: new Map(),  // "jobId#run" -> Set("node/index") observed in state snapshots
  playing: false,
  streamAbort: null,
  loadedScenario: undefined,  // GET /state's scenario.name, as last shown by the picker
  showIdle: new Set(),        // groups whose idle nodes are expanded ("tl:alloc-1", "cap:...")
  openArrays: new Set(),      // Slurm job arrays unfolded in the jobs table ("cluster/N")
};

// Worlds with more nodes than this collapse their idle nodes (capacity and timeline).
const COLLAPSE_IDLE_ABOVE = 12;
// Rows of the jobs table (the newest first).
const JOBS_SHOWN = 200;

// ------------------------------------------------------------------------------------------
// HTTP
// ------------------------------------------------------------------------------------------

function headers(extra = {}) {
  const h = { ...extra };
  if (TOKEN) h["Authorization"] = "Bearer " + TOKEN;
  return h;
}

async function call(method, path, body, extraHeaders = {}, onResponse = null) {
  const url = path.startsWith("/") ? path : `${API}/${path}`;
  const init = { method, headers: headers(extraHeaders), cache: "no-store" };
  if (body !== undefined) {
    init.body = typeof body === "string" ? body : JSON.stringify(body);
    init.headers["Content-Type"] = "application/json";
  }
  const r = await fetch(url, init);
  if (onResponse) onResponse(r);
  const text = await r.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = text; }
  if (!r.ok) {
    const msg = data && data.error ? `${data.field ? data.field + ": " : ""}${data.error}` : text;
    const err = new Error(`${method} ${url}: HTTP ${r.status} ${msg}`);
    err.status = r.status;
    err.data = data;
    throw err;
  }
  return data;
}

function flash(text, kind = "info") {
  const el = $("#status");
  el.textContent = text;
  el.dataset.status = kind;
  el.classList.toggle("show", !!text);
  clearTimeout(flash.t);
  if (text && kind !== "error") flash.t = setTimeout(() => el.classList.remove("show"), 6000);
}

async function guarded(what, fn) {
  try {
    return await fn();
  } catch (e) {
    flash(`${what}: ${e.message}`, "error");
    throw e;
  }
}

// ------------------------------------------------------------------------------------------
// Helpers
// ------------------------------------------------------------------------------------------

function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") el.className = v;
    else if (k === "style") el.style.cssText = v;
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

const unix = (rfc) => (rfc ? Date.parse(rfc) / 1000 : null);

function fmtDur(s) {
  if (s === null || s === undefined || !isFinite(s)) return "—";
  const neg = s < 0;
  s = Math.abs(Math.round(s));
  const d = Math.floor(s / 86400), hh = Math.floor((s % 86400) / 3600);
  const mm = Math.floor((s % 3600) / 60), ss = s % 60;
  let out = d ? `${d}d ${hh}h ${mm}m` : hh ? `${hh}h ${String(mm).padStart(2, "0")}m ${String(ss).padStart(2, "0")}s`
    : mm ? `${mm}m ${String(ss).padStart(2, "0")}s` : `${ss}s`;
  return (neg ? "-" : "") + out;
}

// Offset from the scenario start: "T+5m 01s".
function tplus(rfcOrUnix) {
  if (!ui.state) return "";
  const t = typeof rfcOrUnix === "number" ? rfcOrUnix : unix(rfcOrUnix);
  return "T+" + fmtDur(t - unix(ui.state.clock.start));
}

// Distinct colours per job (golden-angle hues), per queue (a fixed palette by name).
function jobColor(id) {
  const hue = (id * 137.508 + 200) % 360;
  return `hsl(${hue.toFixed(0)} 62% 52%)`;
}
function queueColor(name) {
  if (!name) return "#888";
  let x = 0;
  for (const c of name) x = (x * 31 + c.charCodeAt(0)) >>> 0;
  const palette = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22"];
  return palette[x % palette.length];
}

function jobsById() {
  const m = new Map();
  for (const j of ui.state?.jobs || []) m.set(j.id, j);
  return m;
}
function jobQueue(j) { return j.dialect === "slurm" ? j.partition : j.queue; }
function jobLabel(j) { return j ? j.ref : "?"; }
function shortRef(j) {
  if (!j) return "?";
  if (j.dialect === "slurm") return `${j.cluster}:${j.job_id}`;
  return j.name.length > 14 ? "…" + j.name.slice(-10) : j.name;
}
function lastPreemption(j) {
  return j && j.preemptions && j.preemptions.length ? j.preemptions[j.preemptions.length - 1] : null;
}
function preemptorName(p, byId) {
  if (!p) return "";
  const by = p.by !== null && p.by !== undefined ? byId.get(p.by) : null;
  return by ? by.ref : p.by_name || "?";
}

// "prefix[0-3,5]suffix" -> names (Slurm hostlists in event details).
function expandHostlist(expr) {
  const out = [];
  const re = /([^,\[]+)(\[([^\]]+)\])?([^,]*)/g;
  let m;
  while ((m = re.exec(expr)) !== null) {
    if (!m[0]) { re.lastIndex++; continue; }
    if (!m[2]) { out.push(m[1] + m[4]); continue; }
    for (const part of m[3].split(",")) {
      const [a, b] = part.split("-");
      const w = a.length;
      for (let i = +a; i <= +(b ?? a); i++) out.push(m[1] + String(i).padStart(w, "0") + m[4]);
    }
  }
  return out.filter((s) => s.length);
}

// Cloud.ru placement "alloc-1/node-a:0-1,alloc-2/node-b:6,7" -> [["node-a",[0,1]],["node-b",[6,7]]].
function parsePlacement(text) {
  const out = [];
  for (const tok of (text || "").split(",")) {
    if (!tok) continue;
    let ranges = tok;
    if (tok.includes(":")) {
      const i = tok.lastIndexOf(":");
      const node = tok.slice(0, i).split("/").pop();
      out.push([node, []]);
      ranges = tok.slice(i + 1);
    }
    if (!out.length || !/^[0-9-]+$/.test(ranges)) continue;
    const [a, b] = ranges.split("-");
    for (let g = +a; g <= +(b ?? a); g++) out[out.length - 1][1].push(g);
  }
  return out;
}

// ------------------------------------------------------------------------------------------
// Data flow: state + events, the event stream, reconnects
// ------------------------------------------------------------------------------------------

async function refreshState() {
  const s = await call("GET", "state");
  ui.state = s;
  rememberGpus(s);
  render();
  if (ui.selectedJob !== null) refreshJobPanel();
}

let refreshQueued = null;
function scheduleRefresh(delay = 80) {
  if (refreshQueued) return;
  refreshQueued = setTimeout(async () => {
    refreshQueued = null;
    try { await refreshState(); } catch (e) { /* the stream loop reports connection state */ }
  }, delay);
}

async function loadAllEvents() {
  const all = [];
  let since = 0;
  let generation;
  for (;;) {
    let seen;
    const r = await call("GET", `events?since=${since}&limit=5000`, undefined, {},
                         (res) => { seen = res.headers.get("X-Schedemu-World-Generation"); });
    if (generation !== undefined && seen !== generation) {
      // The world was replaced between two pages: start over in the new one.
      all.length = 0;
      since = 0;
      generation = undefined;
      continue;
    }
    generation = seen;
    ui.generation = generation;
    all.push(...r.events);
    if (!r.events.length || r.next_since >= r.total) break;
    since = r.next_since;
  }
  ui.events = all;
  ui.lastSeq = all.length ? all[all.length - 1].seq : 0;
}

function setConn(state, text) {
  const el = $("#conn");
  el.dataset.conn = state;
  el.textContent = text;
}

// Server-Sent Events over fetch (so the control token can ride in a header); the server's
// `event: reset` (world reset or replaced) and any reconnect trigger a full re-fetch.
async function streamLoop() {
  let delay = 500;
  for (;;) {
    try {
      await loadAllEvents();
      await refreshState();
      setConn("live", "live");
      delay = 500;
      const ctrl = new AbortController();
      ui.streamAbort = ctrl;
      // The generation the events were listed in: a world replaced since (before this stream
      // connects) is announced by the stream's first `event: reset`, not missed.
      const gen = ui.generation ? `&generation=${ui.generation}` : "";
      const r = await fetch(`${API}/events/stream?since=${ui.lastSeq}${gen}`, {
        headers: headers({ Accept: "text/event-stream" }), signal: ctrl.signal, cache: "no-store",
      });
      if (!r.ok || !r.body) throw new Error(`stream HTTP ${r.status}`);
      const reader = r.body.getReader();
      const dec = new TextDecoder();
      let buf = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += dec.decode(value, { stream: true });
        let i;
        while ((i = buf.indexOf("\n\n")) >= 0) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          onSseBlock(block);
        }
      }
      throw new Error("stream ended");
    } catch (e) {
      if (e.status === 401) {
        flash("The control API wants a token (serve --control-token): open this page as /?token=<token>", "error");
      }
      setConn("down", "reconnecting…");
      await new Promise((res) => setTimeout(res, delay));
      delay = Math.min(delay * 2, 5000);
    }
  }
}

function onSseBlock(block) {
  let kind = "message", data = "";
  for (const line of block.split("\n")) {
    if (line.startsWith("event:")) kind = line.slice(6).trim();
    else if (line.startsWith("data:")) data += line.slice(5).trim();
  }
  if (!data && kind === "message") return;
  if (kind === "reset") {
    ui.events = [];
    ui.lastSeq = 0;
    ui.gpuSeen.clear();
    scheduleRefresh(0);
    return;
  }
  let ev;
  try { ev = JSON.parse(data); } catch { return; }
  if (ev.seq <= ui.lastSeq) return;
  ui.events.push(ev);
  ui.lastSeq = ev.seq;
  scheduleRefresh();
}

// The GPU indices of each run, as observed in state snapshots (Slurm events carry only hosts).
function rememberGpus(s) {
  const runs = new Map();
  for (const ev of ui.events) if (ev.kind === "started" && ev.job !== null) runs.set(ev.job, ev.details.run || "1");
  for (const n of s.nodes) {
    n.gpu_owners.forEach((o, i) => {
      if (typeof o !== "number") return;
      const key = `${o}#${runs.get(o) || "1"}`;
      if (!ui.gpuSeen.has(key)) ui.gpuSeen.set(key, new Set());
      ui.gpuSeen.get(key).add(`${n.name}/${i}`);
    });
  }
}

// ------------------------------------------------------------------------------------------
// Rendering
// ------------------------------------------------------------------------------------------

function render() {
  const s = ui.state;
  if (!s) return;
  const t0 = performance.now();
  const parts = {};
  const timed = (name, f) => { const a = performance.now(); f(); parts[name] = +(performance.now() - a).toFixed(1); };
  syncPicker(s);
  renderClock(s);
  renderLegend();
  timed("capacity", () => renderCapacity(s));
  timed("queues", () => renderQueues(s));
  timed("jobs", () => renderJobs(s));
  timed("timeline", () => renderTimeline(s));
  timed("events", () => renderEvents(s));
  timed("layout", () => document.body.offsetHeight);  // the layout the browser does next anyway
  $("#timeline").dataset.renderMs = (performance.now() - t0).toFixed(1);
  $("#timeline").dataset.renderParts = JSON.stringify(parts);
}

// The picker shows the loaded scenario (GET /state's scenario.name): its example when there is
// one, else an extra entry "NAME (loaded)" that is not an example.
function syncPicker(s, force = false) {
  const name = s.scenario ? s.scenario.name : undefined;
  if (name === undefined || (name === ui.loadedScenario && !force)) return;
  const sel = $("#example");
  if (document.activeElement === sel && !force) return;  // the user is choosing: retry later
  ui.loadedScenario = name;
  sel.dataset.loaded = name;
  for (const o of [...sel.querySelectorAll("option[data-custom]")]) o.remove();
  let opt = [...sel.options].find((o) => o.value === name || o.dataset.title === name);
  if (!opt) {
    opt = h("option", { value: "", "data-custom": "", disabled: true }, `${name || "(unnamed)"} (loaded)`);
    sel.prepend(opt);
  }
  for (const o of sel.options) o.textContent = o.textContent.replace(/ ●$/, "");
  if (!opt.hasAttribute("data-custom")) opt.textContent += " ●";
  opt.selected = true;
}

function renderClock(s) {
  const c = s.clock;
  const el = $("#clock");
  el.dataset.now = c.now;
  el.dataset.mode = c.mode;
  el.dataset.speed = c.speed;
  $("#clock-now").textContent = c.now.replace("T", " ").replace(/\.\d+Z$|Z$/, " UTC");
  const paused = c.mode === "manual";
  $("#clock-meta").textContent =
    `T+${fmtDur(c.elapsed_seconds)} · ${paused ? "manual (paused)" : `realtime ×${c.speed}`} · ` +
    `${c.active_jobs} active · next event ${c.next_event ? tplus(c.next_event) : "—"}`;
  const sel = $("#speed");
  if (document.activeElement !== sel) {
    const v = String(c.speed);
    if (![...sel.options].some((o) => o.value === v)) sel.append(h("option", { value: v }, `${v}×`));
    sel.value = v;
  }
}

function renderLegend() {
  const el = $("#legend");
  if (el.childElementCount) return;
  const item = (cls, label) => h("span", { class: "legend-item" }, h("span", { class: `gpu mini ${cls}` }), label);
  el.append(item("free", "free"), item("busy demo", "job (colour) · queue (stripe)"),
    item("other-tenants", "other tenants"), item("down", "node down"), item("drain", "drained"));
}

function gpuCell(node, i, owner, byId) {
  const key = `${node.name}/${i}`;
  if (node.state === "down" || node.state === "drain") {
    const j = typeof owner === "number" ? byId.get(owner) : null;
    return h("div", {
      class: `gpu ${node.state}`, "data-gpu": key, "data-gpu-state": node.state,
      "data-job": j ? j.id : null, "data-job-ref": j ? j.ref : null,
      title: `${key}: node ${node.state}${node.reason ? " (" + node.reason + ")" : ""}${j ? " · " + j.ref : ""}`,
    }, node.state === "down" ? "✕" : "‖");
  }
  if (owner === null || owner === undefined) {
    return h("div", { class: "gpu free", "data-gpu": key, "data-gpu-state": "free", title: `${key}: free` });
  }
  if (owner === "other-tenants") {
    return h("div", { class: "gpu other-tenants", "data-gpu": key, "data-gpu-state": "other-tenants",
      title: `${key}: held by other tenants` });
  }
  const j = byId.get(owner);
  const q = j ? jobQueue(j) : "";
  const pre = lastPreemption(j);
  return h("div", {
    class: `gpu busy${ui.selectedJob === owner ? " selected" : ""}`, "data-gpu": key, "data-gpu-state": "job",
    "data-job": owner, "data-job-ref": j ? j.ref : null, "data-queue": q,
    "data-preempted-by": pre ? preemptorName(pre, byId) : null,
    style: `--job:${jobColor(owner)};--queue:${queueColor(q)}`,
    title: `${key}: ${j ? j.ref : "job " + owner} · ${q}${j ? " · " + j.tenant_name : ""}`,
    onclick: () => selectJob(owner),
  }, `#${owner}`);
}

function nodeRow(n, byId) {
  const used = n.gpu_owners.filter((o) => typeof o === "number").length;
  const other = n.gpu_owners.filter((o) => o === "other-tenants").length;
  return h("div", { class: `node node-${n.state}`, "data-node": n.name, "data-node-state": n.state },
    h("div", { class: "node-name" }, n.name,
      h("span", { class: "node-meta" }, n.state !== "up" ? `${n.state.toUpperCase()} ` : "",
        `${used}/${n.gpus} used${other ? `, ${other} other` : ""} · ${n.gpu_model || "gpu"}`)),
    h("div", { class: "gpus" }, n.gpu_owners.map((o, i) => gpuCell(n, i, o, byId))));
}

// A node with nothing on it: up, every GPU free.
function nodeIdle(n) {
  return n.state === "up" && n.gpu_owners.every((o) => o === null || o === undefined);
}

// The node rows of one allocation or cluster; in big worlds the idle ones fold into one line
// (click to show them).
function nodeRows(group, names, nodes, byId) {
  const list = names.map((n) => nodes.get(n)).filter(Boolean);
  if (nodes.size <= COLLAPSE_IDLE_ABOVE || ui.showIdle.has("cap:" + group)) {
    return list.map((n) => nodeRow(n, byId));
  }
  const idle = list.filter(nodeIdle);
  const rows = list.filter((n) => !nodeIdle(n)).map((n) => nodeRow(n, byId));
  if (idle.length) {
    rows.push(h("div", {
      class: "idle-fold", "data-cap-idle": group, "data-count": idle.length,
      title: idle.map((n) => n.name).join(" "),
      onclick: () => { ui.showIdle.add("cap:" + group); render(); },
    }, `${idle.length} idle node${idle.length === 1 ? "" : "s"} (every GPU free) · show`));
  }
  return rows;
}

function renderCapacity(s) {
  const byId = jobsById();
  const nodes = new Map(s.nodes.map((n) => [n.name, n]));
  const root = $("#regions");
  const frag = document.createDocumentFragment();
  const many = s.nodes.length > COLLAPSE_IDLE_ABOVE;  // big worlds: node lists scroll
  const regionKeys = [...new Set([...s.regions.map((r) => r.key), ...s.allocations.map((a) => a.region)])];
  for (const key of regionKeys) {
    const region = s.regions.find((r) => r.key === key);
    const allocs = s.allocations.filter((a) => a.region === key);
    const shared = region && region.shared_queue ? region.shared_queue.name : null;
    frag.append(h("div", { class: "region", "data-region": key },
      h("h3", {}, `Cloud.ru region ${key}`, shared ? h("span", { class: "tag shared" }, `shared queue: ${shared}`) : null),
      h("div", { class: "allocs" }, allocs.map((a) => h("div", { class: `alloc${many ? " many" : ""}`, "data-allocation": a.name },
        h("div", { class: "alloc-head" },
          h("b", {}, a.name), a.in_shared_cluster ? h("span", { class: "tag shared" }, "shared cluster") : null,
          h("span", { class: "alloc-stats" },
            `${a.gpus.used}/${a.gpus.total} used · ${a.gpus.free} free`,
            a.gpus.shared_borrowed ? ` · ${a.gpus.shared_borrowed} lent to shared` : "",
            a.gpus.other_tenants ? ` · ${a.gpus.other_tenants} other tenants` : "")),
        nodeRows(a.name, a.nodes, nodes, byId))))));
  }
  for (const c of s.slurm_clusters) {
    frag.append(h("div", { class: "region slurm", "data-cluster": c.short_name },
      h("h3", {}, `Slurm cluster ${c.short_name}`, h("span", { class: "tag" }, c.slurm_cluster_name)),
      h("div", { class: "allocs" }, h("div", { class: `alloc${many ? " many" : ""}` },
        h("div", { class: "alloc-head" }, h("b", {}, "partitions"),
          h("span", { class: "alloc-stats" }, c.partitions.map((p) => `${p.name} ${p.gpus.used}/${p.gpus.total}`).join(" · "))),
        reservationRows(c.reservations || []),
        nodeRows(c.short_name, c.nodes, nodes, byId)))));
  }
  root.replaceChildren(frag);
}

// A Slurm cluster's advance reservations: name, nodes, window, flags, users/accounts.
function reservationRows(list) {
  if (!list.length) return null;
  return h("ul", { class: "reservations" }, list.map((r) =>
    h("li", { "data-reservation": r.name, class: r.active ? "active" : "future" },
      h("b", {}, r.name), " ", r.node_list, " · ", r.active ? "active" : `from ${r.start}`,
      r.end ? ` until ${r.end}` : "", r.flags.length ? ` · ${r.flags.join(",")}` : "",
      h("span", { class: "muted" }, ` · ${[...r.users, ...r.accounts].join(",")}`))));
}

function pendingList(ids, byId) {
  if (!ids.length) return h("span", { class: "muted" }, "—");
  return h("ol", { class: "pending-order" }, ids.map((id) => {
    const j = byId.get(id);
    return h("li", { "data-pending-job": id, style: `--job:${jobColor(id)}`, onclick: () => selectJob(id) },
      h("span", { class: "dot" }), j ? shortRef(j) : `#${id}`);
  }));
}

function renderQueues(s) {
  const byId = jobsById();
  const running = (pred) => s.jobs.filter((j) => (j.state === "RUNNING" || j.state === "COMPLETING") && pred(j));
  const root = $("#queues");
  const frag = document.createDocumentFragment();
  if (s.queues.length) {
    const rows = s.queues.map((q) => {
      const run = running((j) => j.dialect !== "slurm" && j.queue === q.name);
      const isShared = q.type.toLowerCase() === "shared";
      let borrowed = null;
      if (isShared) {
        borrowed = h("div", { class: "borrowed" }, s.allocations.filter((a) => a.region === q.region && a.in_shared_cluster)
          .map((a) => h("span", { class: "chip", "data-borrowed": a.name, "data-gpus": a.gpus.shared_borrowed },
            `${a.name}: ${a.gpus.shared_borrowed} GPU${a.gpus.shared_borrowed === 1 ? "" : "s"}`)));
      }
      return h("tr", { "data-queue-row": q.name, "data-running": run.length, "data-pending": q.pending.length },
        h("td", {}, h("span", { class: "qswatch", style: `background:${queueColor(q.name)}` }), q.name,
          isShared ? h("span", { class: "tag shared" }, "shared") : null),
        h("td", {}, q.type.toLowerCase()),
        h("td", {}, q.allocation || q.region),
        h("td", { class: "num" }, q.default_priority ?? "—"),
        h("td", { class: "num" }, run.length, run.length ? h("span", { class: "muted" }, ` (${run.reduce((n, j) => n + j.gpus, 0)} GPU)`) : ""),
        h("td", { class: "num" }, q.pending.length),
        h("td", {}, pendingList(q.pending, byId), borrowed));
    });
    frag.append(h("table", { class: "grid" },
      h("thead", {}, h("tr", {}, ["Cloud.ru queue", "type", "allocation", "priority", "running", "pending", "launch order / borrowed"].map((t) => h("th", {}, t)))),
      h("tbody", {}, rows)));
  }
  for (const c of s.slurm_clusters) {
    const rows = c.partitions.map((p) => {
      const run = running((j) => j.dialect === "slurm" && j.cluster === c.short_name && j.partition === p.name);
      return h("tr", { "data-partition-row": `${c.short_name}/${p.name}`, "data-running": run.length, "data-pending": p.pending.length },
        h("td", {}, h("span", { class: "qswatch", style: `background:${queueColor(p.name)}` }), p.name, p.default ? h("span", { class: "tag" }, "default") : null),
        h("td", {}, `tier ${p.priority_tier}`),
        h("td", {}, `preempt ${p.preempt_mode.toLowerCase()}`),
        h("td", { class: "num" }, `${p.gpus.used}/${p.gpus.total}`),
        h("td", { class: "num" }, run.length),
        h("td", { class: "num" }, p.pending.length),
        h("td", {}, pendingList(p.pending, byId)));
    });
    frag.append(h("table", { class: "grid" },
      h("thead", {}, h("tr", {}, [`Slurm ${c.short_name} partition`, "priority", "preemption", "GPUs", "running", "pending", "launch order"].map((t) => h("th", {}, t)))),
      h("tbody", {}, rows)));
  }
  root.replaceChildren(frag);
}

function fillFilter(sel, values) {
  const cur = sel.value;
  const have = [...sel.options].map((o) => o.value);
  for (const v of values) if (!have.includes(v)) sel.append(h("option", { value: v }, v));
  sel.value = cur;
}

function renderJobs(s) {
  const byId = jobsById();
  const fd = $("#f-dialect"), ft = $("#f-tenant"), fs = $("#f-state");
  fillFilter(fd, [...new Set(s.jobs.map((j) => j.dialect))].sort());
  fillFilter(ft, [...new Set(s.jobs.map((j) => j.tenant_name))].sort());
  fillFilter(fs, [...new Set(s.jobs.map((j) => j.state))].sort());
  // Array tasks still folded under their array's record are shown by that record ("12_[3-15]").
  const jobs = s.jobs.filter((j) => !j.array_folded && (!fd.value || j.dialect === fd.value) &&
    (!ft.value || j.tenant_name === ft.value) && (!fs.value || j.state === fs.value));
  // The newest JOBS_SHOWN rows (filters narrow the rest down): thousands of rows cost seconds of
  // layout on every refresh.
  const shown = jobs.slice(-JOBS_SHOWN).reverse();
  // A Slurm job array is one row (its tasks counted by state), its records under it when open.
  const rows = foldArrays(shown, s.jobs, ui.openArrays).map((item) => {
    if (item.array) return arrayRow(item);
    const j = item.job;
    const pre = lastPreemption(j);
    const by = pre ? preemptorName(pre, byId) : null;
    return h("tr", {
      "data-job-row": j.id, "data-job-ref": j.ref, "data-state": j.state, "data-status": j.status,
      "data-dialect": j.dialect, "data-tenant": j.tenant_name, "data-preempted-by": by,
      "data-array-member": item.member,
      class: [ui.selectedJob === j.id ? "selected" : null, item.member ? "array-member" : null].filter(Boolean).join(" ") || null,
      onclick: () => selectJob(j.id),
    },
      h("td", { class: "num" }, h("span", { class: "dot", style: `--job:${jobColor(j.id)}` }), j.id),
      h("td", { class: "ref", title: j.ref }, j.ref),
      h("td", {}, j.dialect),
      h("td", {}, j.tenant_name),
      h("td", {}, h("span", { class: "qswatch", style: `background:${queueColor(jobQueue(j))}` }), jobQueue(j)),
      h("td", {}, h("span", { class: `state st-${j.state.toLowerCase()}` }, j.status), j.held ? h("span", { class: "tag" }, "held") : null),
      h("td", { class: "num" }, j.gpus),
      h("td", { class: "placement", title: j.dependency || j.placement_text },
        j.placement_text || (j.dependency ? h("span", { class: "tag", "data-dependency": j.dependency }, `⇠ ${j.dependency}`) : null) ||
        (j.queue_position ? `queue #${j.queue_position}` : "")),
      h("td", { class: "num" }, j.restart_count),
      h("td", { class: "preempted-by" }, by ? h("span", { "data-preemptor": by }, `⚡ ${by}`) : ""));
  });
  $("#jobs").replaceChildren(h("table", { class: "grid jobs-table" },
    h("thead", {}, h("tr", {}, ["id", "job", "dialect", "tenant", "queue", "status", "GPUs", "placement", "restarts", "preempted by"].map((t) => h("th", {}, t)))),
    h("tbody", {}, rows.length ? rows : h("tr", {}, h("td", { colspan: 10, class: "muted" }, "no jobs")),
      jobs.length > shown.length ? h("tr", { "data-jobs-more": jobs.length - shown.length },
        h("td", { colspan: 10, class: "muted" }, `${jobs.length - shown.length} older jobs not shown (use the filters)`)) : null)));
}

// The folded row of a Slurm job array: "▸ 12_[0-3] train: 4 tasks (2 RUNNING, 2 PENDING)";
// a click unfolds its records (the folded pending record and each task that left it).
function arrayRow(a) {
  const first = a.tasks[0];
  const summary = Object.entries(a.states).map(([st, n]) => `${n} ${st}`).join(", ");
  const gpus = a.tasks.filter((t) => t.state === "RUNNING" || t.state === "COMPLETING").reduce((n, t) => n + t.gpus, 0);
  const toggle = () => {
    if (ui.openArrays.has(a.array)) ui.openArrays.delete(a.array); else ui.openArrays.add(a.array);
    renderJobs(ui.state);
  };
  return h("tr", {
    class: "array-row", "data-array-row": a.array, "data-tasks": a.tasks.length, "data-open": a.open ? "1" : "0",
    "data-states": summary, onclick: toggle,
  },
    h("td", { class: "num" }, a.open ? "▾" : "▸"),
    h("td", { class: "ref", title: first.ref }, `${a.arrayJobId}_[${a.tasks.length} tasks] ${first.name || ""}`),
    h("td", {}, first.dialect),
    h("td", {}, first.tenant_name),
    h("td", {}, h("span", { class: "qswatch", style: `background:${queueColor(jobQueue(first))}` }), jobQueue(first)),
    h("td", {}, summary),
    h("td", { class: "num" }, gpus),
    h("td", { class: "placement" }, first.dependency ? h("span", { class: "tag" }, `⇠ ${first.dependency}`) : ""),
    h("td", { class: "num" }, a.tasks.reduce((n, t) => n + (t.restart_count || 0), 0)),
    h("td", {}, ""));
}

// Runs of every job from the event log: [start, end) with the GPUs it held and why it ended.
function computeRuns(s) {
  const byId = jobsById();
  const start = unix(s.clock.start), now = s.clock.now_unix;
  const open = new Map();
  const runs = [];
  const enders = new Set(["finished", "preempted", "requeued", "restarting", "cancelled"]);
  for (const ev of ui.events) {
    if (ev.job === null || ev.job === undefined) continue;
    if (ev.kind === "started") {
      open.set(ev.job, { job: ev.job, run: ev.details.run || "1", start: ev.time_unix, end: null,
        placement: ev.details.placement || "", preemptedBy: null, endKind: null });
    } else if (enders.has(ev.kind) && open.has(ev.job)) {
      const r = open.get(ev.job);
      if (ev.kind === "preempted") r.preemptedBy = ev.details.by || "?";
      if (r.end === null) { r.end = ev.time_unix; r.endKind = ev.kind; }
      if (ev.kind !== "preempted") { runs.push(r); open.delete(ev.job); }
    }
  }
  for (const r of open.values()) runs.push(r);
  // GPU keys of each run: the placement text (Cloud.ru has indices), else observed, else lanes.
  const laneFree = new Map();
  runs.sort((a, b) => a.start - b.start);
  const nodeByName = new Map(s.nodes.map((n) => [n.name, n]));
  for (const r of runs) {
    const j = byId.get(r.job);
    let keys = [];
    const parsed = parsePlacement(r.placement).filter(([, g]) => g.length);
    if (parsed.length) keys = parsed.flatMap(([n, gs]) => gs.map((g) => `${n}/${g}`));
    else if (ui.gpuSeen.has(`${r.job}#${r.run}`)) keys = [...ui.gpuSeen.get(`${r.job}#${r.run}`)];
    else if (j) {
      for (const n of expandHostlist(r.placement)) {
        const node = nodeByName.get(n);
        if (!node) continue;
        let need = j.gpus_per_worker || 1;
        for (let g = 0; g < node.gpus && need > 0; g++) {
          const k = `${n}/${g}`;
          if ((laneFree.get(k) ?? -Infinity) <= r.start) { keys.push(k); need--; }
        }
      }
    }
    for (const k of keys) laneFree.set(k, r.end ?? Infinity);
    r.keys = keys;
    r.preemptedBy = r.preemptedBy ?? null;
  }
  return { runs, start, now };
}

// One row per node, its GPUs as lanes inside the row; a run is one bar per node and contiguous
// range of GPUs. Nodes that never ran anything fold into one line per allocation or cluster in
// big worlds (click to show them).
function renderTimeline(s) {
  const { runs, start, now } = computeRuns(s);
  const byId = jobsById();
  const span = Math.max(now - start, 60);
  const t0 = start, t1 = start + span * 1.04;
  const frac = (t) => (t - t0) / (t1 - t0);
  const pct = (t) => (frac(t) * 100).toFixed(3) + "%";
  // node -> [{run, lo, count}]
  const byNode = new Map();
  for (const r of runs) {
    const perNode = new Map();
    for (const k of r.keys) {
      const i = k.lastIndexOf("/");
      const n = k.slice(0, i);
      if (!perNode.has(n)) perNode.set(n, []);
      perNode.get(n).push(+k.slice(i + 1));
    }
    for (const [n, gs] of perNode) {
      gs.sort((a, b) => a - b);
      if (!byNode.has(n)) byNode.set(n, []);
      let lo = gs[0], prev = gs[0];
      for (let i = 1; i <= gs.length; i++) {
        if (i < gs.length && gs[i] === prev + 1) { prev = gs[i]; continue; }
        byNode.get(n).push({ r, lo, count: prev - lo + 1 });
        if (i < gs.length) { lo = gs[i]; prev = gs[i]; }
      }
    }
  }
  const nodes = new Map(s.nodes.map((n) => [n.name, n]));
  const groups = [...s.allocations.map((a) => [a.name, a.nodes]),
    ...s.slurm_clusters.map((c) => [c.short_name, c.nodes])];
  const collapse = s.nodes.length > COLLAPSE_IDLE_ABOVE;
  const rows = [];
  let bars = 0;
  const nodeRowEl = (group, n) => {
    // Small worlds get taller lanes (labels fit in a 2-GPU bar); big ones 4 px per GPU.
    const lane = !collapse ? (n.gpus <= 4 ? 12 : n.gpus <= 8 ? 7 : Math.max(2, 56 / n.gpus))
      : n.gpus <= 2 ? 8 : n.gpus <= 4 ? 6 : n.gpus <= 8 ? 4 : Math.max(1, 32 / n.gpus);
    const height = Math.max(lane * n.gpus, 12);
    const segs = byNode.get(n.name) || [];
    const els = segs.map(({ r, lo, count }) => {
      const j = byId.get(r.job);
      const end = r.end ?? now;
      const gpus = [...Array(count).keys()].map((x) => lo + x);
      bars++;
      return h("div", {
        class: `bar${r.preemptedBy ? " preempted" : ""}${ui.selectedJob === r.job ? " selected" : ""}`,
        "data-bar": "", "data-job": r.job, "data-bar-node": n.name, "data-bar-gpus": gpus.join(","),
        "data-bar-gpu": `${n.name}/${lo}`, "data-run": r.run,
        "data-preempted-by": r.preemptedBy, "data-end": r.endKind || "running",
        style: `left:${pct(r.start)};width:calc(${pct(end)} - ${pct(r.start)});top:${lo * lane}px;` +
          `height:${Math.max(count * lane - 1, 1)}px;--job:${jobColor(r.job)}`,
        title: `${j ? j.ref : "#" + r.job} run ${r.run} on ${n.name} GPU ${lo}${count > 1 ? "-" + (lo + count - 1) : ""}: ` +
          `${tplus(r.start)} → ${r.end ? tplus(r.end) : "now"}` +
          (r.preemptedBy ? ` · preempted by ${r.preemptedBy}` : r.endKind ? ` · ${r.endKind}` : ""),
        onclick: () => selectJob(r.job),
      }, count * lane >= 11 ? h("span", { class: "bar-label" }, `#${r.job}`) : null,
      r.preemptedBy ? h("span", { class: "pre-mark", title: `preempted by ${r.preemptedBy}` }, "✕") : null);
    });
    return h("div", { class: "tl-row tl-node", "data-tl-node": n.name, style: `height:${height + 2}px` },
      h("div", { class: "tl-label", title: `${group} / ${n.name}: ${n.gpus} GPUs` }, h("b", {}, n.name),
        h("span", { class: "muted" }, ` ${n.gpus}×`)),
      h("div", { class: "tl-track" }, els));
  };
  for (const [group, names] of groups) {
    const list = names.map((n) => nodes.get(n)).filter(Boolean);
    const busy = list.filter((n) => byNode.has(n.name));
    const idle = list.filter((n) => !byNode.has(n.name));
    if (groups.length > 1 || collapse) {
      rows.push(h("div", { class: "tl-group", "data-tl-group": group },
        `${group} · ${busy.length} of ${list.length} node${list.length === 1 ? "" : "s"} ran something`));
    }
    const showIdle = !collapse || ui.showIdle.has("tl:" + group);
    for (const n of showIdle ? list : busy) rows.push(nodeRowEl(group, n));
    if (!showIdle && idle.length) {
      rows.push(h("div", {
        class: "tl-row idle-fold", "data-tl-idle": group, "data-count": idle.length,
        title: idle.slice(0, 200).map((n) => n.name).join(" ") + (idle.length > 200 ? " …" : ""),
        onclick: () => { ui.showIdle.add("tl:" + group); render(); },
      }, h("div", { class: "tl-label" }, ""), h("div", { class: "tl-track idle-track" },
        `${idle.length} idle node${idle.length === 1 ? "" : "s"} (no run yet) · show`)));
    }
  }
  const ticks = [];
  const step = niceStep(span / 6);
  for (let t = 0; t <= span * 1.04; t += step) {
    if (Math.abs(t0 + t - now) < span * 0.06 && t > 0) continue;  // keep the "now" label legible
    ticks.push(h("div", { class: "tick", style: `left:${pct(t0 + t)}` }, `T+${fmtDur(t)}`));
  }
  const el = $("#timeline");
  el.dataset.rows = rows.length;
  el.dataset.bars = bars;
  const body = el.querySelector(".tl-body");
  const scroll = body ? body.scrollTop : 0;
  el.replaceChildren(
    h("div", { class: "tl-row tl-axis" }, h("div", { class: "tl-label" }, ""), h("div", { class: "tl-track" }, ticks,
      h("div", { class: "now-line", style: `left:${pct(now)}` }, "now"))),
    h("div", { class: "tl-body" }, bars || rows.length ? rows : h("div", { class: "muted pad" }, "no runs yet"),
      h("div", { class: "now-rule", style: `left:calc(var(--tl-label) + (100% - var(--tl-label)) * ${frac(now).toFixed(4)})` })));
  if (scroll) el.querySelector(".tl-body").scrollTop = scroll;
}

function niceStep(x) {
  const steps = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14400, 21600, 43200, 86400];
  return steps.find((s) => s >= x) || 86400 * Math.ceil(x / 86400);
}

function eventText(ev, byId) {
  const j = ev.job !== null ? byId.get(ev.job) : null;
  const who = j ? j.ref : ev.subject;
  const d = ev.details || {};
  switch (ev.kind) {
    case "submitted": return `${who} submitted${d.queue ? " to " + d.queue : d.partition ? " to " + d.partition : ""}`;
    case "started": return `${who} started on ${d.placement}`;
    case "preempted": return `${who} preempted by ${d.by}`;
    case "finished": return `${who} finished: ${d.state}${d.exit_code && d.exit_code !== "0" ? " (exit " + d.exit_code + ")" : ""}`;
    default: {
      const extra = Object.entries(d).map(([k, v]) => `${k}=${v}`).join(" ");
      return `${ev.kind.replace(/_/g, " ")} ${who || ""} ${extra}`.trim();
    }
  }
}

function renderEvents(s) {
  const byId = jobsById();
  const last = ui.events.slice(-80).reverse();
  $("#events").replaceChildren(h("ul", { class: "event-list" }, last.map((ev) =>
    h("li", { "data-event": ev.seq, "data-kind": ev.kind, class: `ev-${ev.kind}` },
      h("span", { class: "ev-time" }, tplus(ev.time_unix)),
      h("span", { class: "ev-kind" }, ev.kind),
      h("span", { class: "ev-text" }, eventText(ev, byId))))));
}

// ------------------------------------------------------------------------------------------
// Job panel
// ------------------------------------------------------------------------------------------

function selectJob(id) {
  ui.selectedJob = id;
  ui.jobView = null;
  render();
  refreshJobPanel();
}

async function refreshJobPanel() {
  const id = ui.selectedJob;
  const panel = $("#job-panel");
  if (id === null) { panel.hidden = true; return; }
  try {
    ui.jobView = await call("GET", `jobs/${id}`);
  } catch (e) {
    ui.jobView = null;
  }
  if (ui.selectedJob !== id) return;
  renderJobPanel();
}

function renderJobPanel() {
  const panel = $("#job-panel");
  const j = ui.jobView;
  if (!j) { panel.hidden = true; return; }
  panel.hidden = false;
  panel.dataset.job = j.id;
  const byId = jobsById();
  $("#job-title").replaceChildren(h("span", { class: "dot", style: `--job:${jobColor(j.id)}` }), ` #${j.id} ${j.ref}`);
  const kv = (k, v) => (v === null || v === undefined || v === "" ? null : h("tr", {}, h("th", {}, k), h("td", {}, v)));
  const spec = h("table", { class: "kv" },
    kv("dialect", j.dialect), kv("status", h("span", { class: `state st-${j.state.toLowerCase()}` }, `${j.status} (${j.state})`)),
    kv("reason", j.reason), kv("dependency", j.dependency),
    kv("array", j.array_job_id ? `job ${j.array_job_id}, task ${j.array_task_id}` : null), kv("tenant", `${j.tenant_name}${j.tenant !== j.tenant_name ? " (" + j.tenant + ")" : ""}`),
    kv(j.dialect === "slurm" ? "partition" : "queue", jobQueue(j)),
    kv("cluster", j.cluster), kv("region", j.region), kv("allocation", j.allocation),
    kv("instance type", j.instance_type), kv("priority class", j.priority_class),
    kv("size", `${j.workers} worker${j.workers === 1 ? "" : "s"} × ${j.gpus_per_worker} GPU = ${j.gpus} GPU`),
    kv("priority rank", j.priority_rank), kv("queue position", j.queue_position || null),
    kv("held", j.held ? "yes" : null), kv("exit code", j.exit_code),
    kv("created", j.created_at ? `${tplus(j.created_at)} (${j.created_at})` : null),
    kv("started", j.started_at ? tplus(j.started_at) : null),
    kv("completed", j.completed_at ? tplus(j.completed_at) : null),
    kv("restarts", j.restart_count));
  const placement = j.placement.length
    ? h("table", { class: "grid" }, h("thead", {}, h("tr", {}, h("th", {}, "node"), h("th", {}, "allocation"), h("th", {}, "GPUs"), h("th", {}, "CPUs"))),
      h("tbody", {}, j.placement.map((p) => h("tr", { "data-placement-node": p.node }, h("td", {}, p.node), h("td", {}, p.allocation || "—"),
        h("td", {}, Array.isArray(p.gpus) ? p.gpus.join(",") : p.gpus), h("td", {}, p.cpus ?? "—")))))
    : h("p", { class: "muted" }, "not placed");
  const pre = j.preemptions.length
    ? h("ul", { class: "preemptions" }, j.preemptions.map((p) => {
      const by = preemptorName(p, byId);
      return h("li", { "data-preempted-by": by }, `⚡ preempted at ${tplus(p.at)} by `, h("b", {}, by),
        p.by_priority ? ` (priority ${p.by_priority})` : "");
    }))
    : h("p", { class: "muted" }, "never preempted");
  const hist = ui.events.filter((e) => e.job === j.id);
  const history = h("ol", { class: "history" }, hist.map((e) => h("li", { "data-kind": e.kind },
    h("span", { class: "ev-time" }, tplus(e.time_unix)), h("span", { class: "ev-kind" }, e.kind),
    h("span", { class: "ev-text" }, Object.entries(e.details || {}).map(([k, v]) => `${k}=${v}`).join(" ")))));
  const actions = h("div", { class: "job-actions" },
    ["preempt", "finish", "fail", "hold", "release"].map((a) => h("button", {
      "data-job-action": a, onclick: () => guarded(a, async () => { await call("POST", `jobs/${a}`, { id: j.id }); scheduleRefresh(0); }),
    }, a)));
  const me = jobsById().get(j.id) || j;
  const graph = me.dialect === "slurm"
    ? dependencyGraph(me, ui.state?.jobs || [], (x) => x.status || x.state, (x) => selectJob(x.id)) : null;
  $("#job-body").replaceChildren(
    h("div", { class: "job-cols" },
      h("div", {}, h("h4", {}, "Spec"), spec, actions,
        graph ? h("h4", {}, "Dependencies") : null, graph),
      h("div", {}, h("h4", {}, "Placement"), h("p", { class: "mono" }, j.placement_text || ""), placement,
        h("h4", {}, "Preemptions"), pre,
        h("h4", {}, "Output"), outputBlock(j)),
      h("div", {}, h("h4", {}, "State history (virtual time)"), history)));
}

// What the job printed so far (every run), from GET /emulator/v1/jobs/{id}.
function outputBlock(j) {
  const lines = Array.isArray(j.output) ? j.output : [];
  if (!lines.length) return h("p", { class: "muted", "data-output": "empty" }, "nothing printed yet");
  return h("pre", { class: "output mono", "data-output": String(lines.length) },
    lines.map((l) => `${tplus(l.time_unix)}  ${l.text}`).join("\n"));
}

// ------------------------------------------------------------------------------------------
// Controls: clock, scenario picker, timeline player
// ------------------------------------------------------------------------------------------

function parseDuration(v) {
  if (typeof v === "number") return v;
  let total = 0;
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/g;
  let m, any = false;
  while ((m = re.exec(v)) !== null) {
    any = true;
    total += +m[1] * { ms: 0.001, s: 1, m: 60, h: 3600, d: 86400 }[m[2]];
  }
  return any ? total : Number(v);
}

async function loadExample(name) {
  const text = await fetch(`/dashboard-api/examples/${encodeURIComponent(name)}`, { cache: "no-store" }).then((r) => {
    if (!r.ok) throw new Error(`example ${name}: HTTP ${r.status}`);
    return r.text();
  });
  const r = await call("POST", "scenario", text);
  ui.selectedJob = null;
  $("#job-panel").hidden = true;
  flash(`loaded ${r.name} (${r.timeline_steps} timeline steps; ▶ Play runs them)`);
  return JSON.parse(text);
}

// Walks an example's timeline like `schedemu run` does: clock/set to each step, then the action
// through the public APIs (dialect submits with the example's credentials, control for the rest).
async function playExample(name) {
  if (ui.playing) return;
  ui.playing = true;
  document.body.classList.add("playing");
  try {
    const sc = await loadExample(name);
    const clock = await call("GET", "clock");
    const start = unix(clock.start);
    const aliases = new Map();
    const steps = (sc.timeline || []).map((s, i) => ({ ...s, i, at: parseDuration(s.at) }))
      .sort((a, b) => a.at - b.at || a.i - b.i);
    for (const step of steps) {
      const now = (await call("GET", "clock")).now_unix;
      if (start + step.at > now) {
        await new Promise((res) => setTimeout(res, 700));
        await call("POST", "clock/set", { time: start + step.at });
      }
      flash(`T+${fmtDur(step.at)} ${step.note || describeStep(step)}`);
      await runStep(sc, step, aliases);
      scheduleRefresh(0);
    }
    flash(`${sc.name}: timeline played (${steps.length} steps)`);
  } finally {
    ui.playing = false;
    document.body.classList.remove("playing");
  }
}

function describeStep(step) {
  const k = Object.keys(step).find((x) => !["at", "note", "i", "$comment"].includes(x));
  return `${k} ${k === "submit" ? step.submit.as || "" : ""}`;
}

async function runStep(sc, step, aliases) {
  if (step.submit) return submitStep(sc, step.submit, aliases);
  if (step.node) return call("POST", `nodes/${step.node.name}/${step.node.state}`, step.node.reason ? { reason: step.node.reason } : {});
  if (step.add_node) {
    const isAlloc = (sc.allocations || []).some((a) => a.name === step.add_node.to);
    return call("POST", "nodes", { name: step.add_node.name, [isAlloc ? "allocation" : "cluster"]: step.add_node.to });
  }
  if (step.remove_node) return call("DELETE", `nodes/${step.remove_node.name}`);
  if (step.gpus) {
    const take = "take" in step.gpus;
    return call("POST", `allocations/${step.gpus.allocation}/${take ? "take-gpus" : "return-gpus"}`,
      { count: take ? step.gpus.take : step.gpus.return });
  }
  if (step.job_action) {
    const id = aliases.get(step.job_action.job);
    if (id === undefined) throw new Error(`unknown job alias ${step.job_action.job}`);
    const body = { id };
    if ("exit_code" in step.job_action) body.exit_code = step.job_action.exit_code;
    return call("POST", `jobs/${step.job_action.action}`, body);
  }
  if (step.fault) return call("POST", "faults", step.fault);
  if ("clock_speed" in step) return call("POST", "clock/speed", { speed: step.clock_speed });
  if (step.behaviour_rule) return call("POST", "behaviour-rules", step.behaviour_rule);
  return null;  // expect: checked by `schedemu run`, shown as a note here
}

async function submitStep(sc, a, aliases) {
  const expectHttp = a.expect_http;
  try {
    if (a.dialect === "cloudru") {
      const ws = (sc.workspaces || []).find((w) => w.name === a.workspace || w.id === a.workspace);
      if (!ws) throw new Error(`no workspace ${a.workspace}`);
      const hdr = { "x-workspace-id": ws.id, "x-api-key": ws.api_key };
      const sa = (ws.service_accounts || [])[0];
      if (sa) {
        const tok = await call("POST", "/public/v2/service_auth", { client_id: sa.client_id, client_secret: sa.client_secret });
        if (tok && tok.token) hdr["Authorization"] = "Bearer " + tok.token.access_token;
      }
      const r = await fetch("/public/v2/jobs", { method: "POST", headers: { ...hdr, "Content-Type": "application/json" }, body: JSON.stringify(a.body) });
      const body = await r.json().catch(() => null);
      if (!r.ok) throw Object.assign(new Error(`submit: HTTP ${r.status}`), { status: r.status });
      if (a.as && body && body.job_name) aliases.set(a.as, (await call("GET", `jobs/${encodeURIComponent(body.job_name)}`)).id);
    } else {
      const p = (sc.principals || []).find((x) => x.linux_user === a.user && x.token);
      const clusters = sc.slurm_clusters || [];
      const c = clusters.find((x) => x.name === a.cluster || a.cluster?.endsWith("/" + x.name)) || clusters[0];
      const resource = `projects/${c.project}/locations/${c.location}/modelDevelopmentClusters/${c.name}`;
      const r = await fetch(`/v1beta1/${resource}:callSlurmRestApi`, {
        method: "POST", headers: { Authorization: "Bearer " + (p ? p.token : ""), "Content-Type": "application/json" },
        body: JSON.stringify({ method: "HTTP_METHOD_POST", path: "/slurm/v0.0.42/job/submit", body: a.body }),
      });
      const env = await r.json().catch(() => null);
      const status = r.ok && env && typeof env.status === "number" ? env.status : r.status;
      if (status !== 200) throw Object.assign(new Error(`submit: HTTP ${status}`), { status });
      // Slurm's answer: structuredBody, else body (JSON text) when serve keeps that form only.
      const answer = env.structuredBody || (typeof env.body === "string" ? JSON.parse(env.body) : {});
      const jid = answer.job_id;
      if (a.as && jid) aliases.set(a.as, (await call("GET", `jobs/${c.name}:${jid}`)).id);
    }
  } catch (e) {
    if (expectHttp && e.status === expectHttp) return;  // an expected refusal (fault examples)
    throw e;
  }
}

async function initControls() {
  const bar = $("#clock-controls");
  bar.addEventListener("click", (e) => {
    const b = e.target.closest("button");
    if (!b) return;
    if (b.dataset.advance) {
      guarded("advance", () => call("POST", "clock/advance", { seconds: Number(b.dataset.advance) })).then(() => scheduleRefresh(0));
    } else if (b.dataset.action === "run-until-idle") {
      guarded("run until idle", () => call("POST", "clock/run-until-idle", {})).then((r) => {
        flash(`ran ${r.events_processed} events, +${fmtDur(r.advanced_seconds)}${r.idle ? ", idle" : ", not idle (cap)"}`);
        scheduleRefresh(0);
      });
    } else if (b.dataset.action === "pause") {
      // The control API has no speed 0 (speed must be > 0): pausing a realtime clock is the
      // slowest speed; the manual clock is always paused between advances.
      guarded("pause", () => call("POST", "clock/speed", { speed: 0.000001 })).then(() => scheduleRefresh(0));
    }
  });
  $("#speed").addEventListener("change", (e) => {
    guarded("speed", () => call("POST", "clock/speed", { speed: Number(e.target.value) })).then(() => scheduleRefresh(0));
  });
  for (const f of ["#f-dialect", "#f-tenant", "#f-state"]) $(f).addEventListener("change", () => render());
  $("#scenario-picker").addEventListener("click", (e) => {
    const b = e.target.closest("button");
    if (!b) return;
    const name = $("#example").value;
    if ((b.dataset.action === "load" || b.dataset.action === "play") && !name) {
      flash("pick an example to load", "error");
      return;
    }
    if (b.dataset.action === "load") guarded("load", () => loadExample(name));
    if (b.dataset.action === "play") guarded("play", () => playExample(name));
    if (b.dataset.action === "reset") guarded("reset", () => call("POST", "reset")).then(() => flash("reset to the loaded scenario"));
  });
  $("#job-panel").addEventListener("click", (e) => {
    if (e.target.closest("[data-action=close-job]")) { ui.selectedJob = null; $("#job-panel").hidden = true; render(); }
  });
  try {
    const r = await fetch("/dashboard-api/examples", { cache: "no-store" }).then((x) => x.json());
    ui.examples = r.examples;
    $("#example").replaceChildren(...r.examples.map((x) => h("option", { value: x.name, "data-title": x.title || x.name, title: x.description || "" }, x.name)));
    if (ui.state) syncPicker(ui.state, true);
  } catch { /* the picker stays empty */ }
}

// Realtime clocks move without events: keep the clock and the timeline's right edge moving.
setInterval(() => {
  if (ui.state && ui.state.clock.mode !== "manual" && document.visibilityState === "visible") scheduleRefresh(0);
}, 1000);

initControls();
streamLoop();
