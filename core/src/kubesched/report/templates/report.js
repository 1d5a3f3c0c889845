// The report's only script: search the pod table and show a pod's attempts. It reads the
// document in #report-data and builds elements with textContent (never innerHTML), so
// names and messages from the cluster are shown as text.
(function () {
  "use strict";
  const data = JSON.parse(document.getElementById("report-data").textContent);
  const rows = Array.from(document.querySelectorAll("#pod-table tbody tr.pod"));
  const search = document.getElementById("pod-search");
  const status = document.getElementById("pod-status");
  const count = document.getElementById("pod-count");
  const detail = document.getElementById("pod-detail");
  const pods = new Map((data.pods || []).map((p) => [p.namespace + "/" + p.name, p]));
  const texts = rows.map((r) => r.textContent.toLowerCase());

  function el(tag, text, cls) {
    const e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    return e;
  }

  function filter() {
    const words = search.value.toLowerCase().split(/\s+/).filter(Boolean);
    const want = status.value;
    let shown = 0;
    rows.forEach((row, i) => {
      const ok = (!want || row.dataset.status === want) && words.every((w) => texts[i].includes(w));
      row.hidden = !ok;
      if (ok) shown += 1;
    });
    count.textContent = shown + " of " + rows.length + " pods";
  }

  function table(head, body) {
    const t = el("table", null, "grid");
    const tr = el("tr");
    head.forEach((h) => tr.appendChild(el("th", h)));
    t.appendChild(el("thead")).appendChild(tr);
    const tb = t.appendChild(el("tbody"));
    body.forEach((cells) => {
      const r = tb.appendChild(el("tr"));
      cells.forEach((c) => r.appendChild(c instanceof Node ? c : el("td", c)));
    });
    return t;
  }

  function scroll(child) {
    const box = el("div", null, "scroll");
    box.appendChild(child);
    return box;
  }

  // CPU in cores, memory in binary units (as the Python report's format_amount)
  function amount(resource, value) {
    if (resource === "cpu") return value % 1000 === 0 ? String(value / 1000) : value + "m";
    if (resource === "memory" || resource === "ephemeral-storage" || resource.startsWith("hugepages-")) {
      for (const [suffix, size] of [["Ti", 2 ** 40], ["Gi", 2 ** 30], ["Mi", 2 ** 20], ["Ki", 2 ** 10]]) {
        if (value >= size) return (value / size < 10 ? (value / size).toFixed(1) : Math.round(value / size)) + suffix;
      }
    }
    return String(value);
  }

  function facts(list) {
    const dl = el("dl");
    list.forEach(([k, v]) => {
      if (v === undefined || v === null || v === "" || (Array.isArray(v) && !v.length)) return;
      dl.appendChild(el("dt", k));
      dl.appendChild(el("dd", Array.isArray(v) ? v.join(", ") : v));
    });
    return dl;
  }

  // an attempt's nodes from its compact form (see AttemptRecord): per node, why it was
  // not filtered, each Filter plugin's verdict, the plugins' lines, and its scores
  function expand(a) {
    const nodes = a.nodes.map((name) => ({ name: name, verdicts: {}, details: {} }));
    Object.entries(a.excluded || {}).forEach(([reason, ids]) => ids.forEach((i) => { nodes[i].excluded = reason; }));
    Object.entries(a.verdicts || {}).forEach(([plugin, groups]) =>
      Object.entries(groups).forEach(([verdict, ids]) => ids.forEach((i) => { nodes[i].verdicts[plugin] = verdict; })));
    (a.details || []).forEach((d) => { nodes[d.node].details[d.plugin] = d.lines; });
    (a.nominatedPods || []).forEach((n) => { nodes[n.node].nominated = n.pods; });
    const scored = (a.scored || []).map((i, k) => {
      const scores = {};
      Object.entries(a.rawScores || {}).forEach(([plugin, raw]) => {
        const normalized = ((a.normalizedScores || {})[plugin] || raw)[k];
        scores[plugin] = [raw[k], normalized, normalized * (a.weights[plugin] ?? 1)];
      });
      return { name: nodes[i].name, scores: scores, total: a.totals[k] };
    });
    return { nodes: nodes, scored: scored };
  }

  function filterTable(a, nodes) {
    const plugins = a.filterPlugins;
    const body = nodes.map((n) => {
      const counted = n.nominated ? "\ncounting nominated pod(s): " + n.nominated.join(", ") : "";
      const cells = [el("td", n.name + counted)];
      if (n.excluded) {
        const td = el("td", "not filtered: " + n.excluded, "rejected");
        td.colSpan = Math.max(1, plugins.length);
        cells.push(td);
        return cells;
      }
      plugins.forEach((p) => {
        const v = n.verdicts[p];
        const lines = [v || "ok"].concat((n.details[p] || []).map((d) => "· " + d));
        cells.push(el("td", lines.join("\n"), !v ? "ok" : v === "skipped" ? "skipped" : "rejected"));
      });
      return cells;
    });
    return table(["Node"].concat(plugins), body);
  }

  function scoreTable(a, scored) {
    if (!scored.length) return null;
    const rows = scored.slice().sort((x, y) => y.total - x.total);
    const plugins = Object.keys(a.rawScores || {});
    const head = ["Node"].concat(plugins.map((p) => p + " ×" + (a.weights[p] ?? 1)), ["Total"]);
    const best = rows[0].total;
    const body = rows.map((n) => {
      const cells = [el("td", n.name)];
      plugins.forEach((p) => {
        const s = n.scores[p];
        cells.push(el("td", s[0] + " → " + s[1] + " = " + s[2], "num"));
      });
      cells.push(el("td", n.total, n.total === best ? "num best" : "num"));
      return cells;
    });
    return table(head, body);
  }

  function attempt(a, open) {
    const d = el("details", null, "attempt");
    d.open = open;
    const result = a.result ? " → " + a.result : "";
    d.appendChild(el("summary", "Attempt " + a.attempt + " at " + a.at + "s (" + a.profile + "): " + a.outcome + result));
    const pre = Object.entries(a.preFilter || {}).map(([k, v]) => k + ": " + v);
    d.appendChild(facts([["PreFilter", pre], ["Notes", a.notes || []]]));
    const nodes = expand(a);
    // the verdicts counted (the whole table is folded when the cluster is large)
    const counts = [];
    Object.entries(a.excluded || {}).forEach(([reason, ids]) => counts.push(ids.length + " not filtered: " + reason));
    const skipped = [];
    Object.entries(a.verdicts || {}).forEach(([plugin, groups]) =>
      Object.entries(groups).forEach(([verdict, ids]) => {
        if (verdict === "skipped") skipped.push(plugin);
        else counts.push(ids.length + " " + plugin + ": " + verdict);
      }));
    if (skipped.length) counts.push("skipped (PreFilter said Skip): " + skipped.join(", "));
    const passed = nodes.nodes.filter((n) => !n.excluded && Object.values(n.verdicts).every((v) => v === "skipped")).length;
    d.appendChild(facts([["Filter", [passed + " of " + a.nodes.length + " nodes passed"].concat(counts).join("\n")]]));
    const filters = el("details", null, "filters");
    filters.open = a.nodes.length <= 20;
    filters.appendChild(el("summary", "Filter: each plugin's verdict per node (" + a.nodes.length + " nodes)"));
    filters.appendChild(scroll(filterTable(a, nodes.nodes)));
    d.appendChild(filters);
    const scores = scoreTable(a, nodes.scored);
    d.appendChild(el("h4", scores ? "Score (raw → normalized = weighted)" : "Score: no node was scored"));
    if (scores) d.appendChild(scroll(scores));
    return d;
  }

  function show(row) {
    rows.forEach((r) => r.classList.toggle("selected", r === row));
    const key = row.dataset.key;
    const p = pods.get(key) || {};
    const more = (data.details || {})[key] || {};
    const attempts = (data.attempts || {})[key] || [];
    detail.replaceChildren();
    detail.appendChild(el("h3", key));
    const claims = (more.claims || []).map((c) => c.name + (c.phase ? " (" + c.phase + (c.volume ? ", " + c.volume : "") + ")" : " (not found)"));
    const labels = Object.entries(more.labels || {}).map(([k, v]) => k + "=" + v);
    detail.appendChild(facts([
      ["Status", p.status], ["Node", p.node], ["Message", p.message],
      ["Scheduler", p.schedulerName], ["Priority", more.priority],
      ["Requests", Object.entries(more.requests || {}).map(([k, v]) => k + "=" + amount(k, v))],
      ["Nominated node", p.nominatedNode], ["Preempted by", p.preemptedBy],
      ["Preemption victims", more.victims || []], ["Gang (PodGroup)", more.podGroup],
      ["Volume claims", claims], ["Created / bound at", p.createdAt === null || p.createdAt === undefined ? null : p.createdAt + "s / " + (p.boundAt === null ? "-" : p.boundAt + "s")],
      ["Error", p.error ? (p.error.plugin + ": " + p.error.exception + " " + p.error.location).trim() : null],
      ["Labels", labels],
    ]));
    if (!attempts.length) detail.appendChild(el("p", "No scheduling attempt.", "hint"));
    attempts.forEach((a, i) => detail.appendChild(attempt(a, i === attempts.length - 1)));
    detail.hidden = false;
    detail.scrollIntoView({ block: "nearest" });
  }

  rows.forEach((row) => {
    row.addEventListener("click", () => show(row));
    row.addEventListener("keydown", (e) => { if (e.key === "Enter") show(row); });
  });
  search.addEventListener("input", filter);
  status.addEventListener("change", filter);
  const wanted = decodeURIComponent(location.hash.slice(1));
  filter();
  if (wanted.startsWith("pod=")) {
    const row = rows.find((r) => r.dataset.key === wanted.slice(4));
    if (row) show(row);
  }
})();
