// The gdrcheck playground (docs/web.md): CodeMirror 6 (the global CM, vendored) for
// the editor, Viz.js (the global Viz, vendored) to draw the pictures' DOT as SVG.
"use strict";

const EXAMPLE = `X86 SB
"Store buffering: both reads may miss the other thread's write under x86-TSO."
{ x = 0; y = 0; }
 P0          | P1          ;
 MOV [x],$1  | MOV [y],$1  ;
 MOV EAX,[y] | MOV EAX,[x] ;
exists (0:EAX = 0 /\\ 1:EAX = 0)
`;

// -- syntax highlighting: a stream tokenizer for the litmus format -----------------
const KEYWORDS = new Set(["exists", "forall", "filter", "locations", "with", "cta", "gpu",
  "node", "sys"]);
const litmus = CM.StreamLanguage.define({
  name: "litmus",
  startState: () => ({ comment: 0, line: 0 }),
  token(stream, state) {
    if (stream.sol()) state.line += 1;
    if (state.comment === 0 && stream.match("(*")) state.comment = 1;
    if (state.comment > 0) {
      while (!stream.eol()) {
        if (stream.match("*)")) { state.comment -= 1; if (!state.comment) break; }
        else if (stream.match("(*")) state.comment += 1;
        else stream.next();
      }
      return "comment";
    }
    if (stream.sol() && state.line === 1 && stream.match(/^(X86|PTX|GIN)\b/)) return "keyword";
    if (stream.sol() && stream.match(/^[A-Z][A-Za-z-]*=/)) { stream.skipToEnd(); return "meta"; }
    if (stream.eatSpace()) return null;
    if (stream.match(/^"[^"]*"?/)) return "string";
    if (stream.match(/^~?(exists|forall)\b/)) return "keyword";
    if (stream.match(/^P\d+(@[^|;]*)?/)) return "typeName";
    if (stream.match(/^\d+:[A-Za-z_]\w*/)) return "variableName.special";
    if (stream.match(/^\$?-?(0x[0-9a-fA-F]+|\d+)\b/)) return "number";
    if (stream.match(/^[a-z_][\w]*(\.[\w]+)+/)) return "operatorKeyword";
    if (stream.match(/^[A-Za-z_]\w*/)) {
      const w = stream.current();
      if (KEYWORDS.has(w)) return "keyword";
      if (/^(r\d+|[A-Z]{2,3}X?|E[A-Z]{2})$/.test(w)) return "variableName.special";
      if (/^[A-Z]+$/.test(w)) return "operatorKeyword";
      return "variableName";
    }
    if (stream.match(/^(\/\\|\\\/|=|!=|>=|<=|<|>|@)/)) return "operator";
    if (stream.match(/^[|;{}()\[\],]/)) return "punctuation";
    stream.next();
    return null;
  },
});
const style = CM.HighlightStyle.define([
  { tag: CM.tags.keyword, color: "#708", fontWeight: "bold" },
  { tag: CM.tags.comment, color: "#940" },
  { tag: CM.tags.string, color: "#a11" },
  { tag: CM.tags.meta, color: "#555", fontStyle: "italic" },
  { tag: CM.tags.number, color: "#164" },
  { tag: CM.tags.typeName, color: "#05a", fontWeight: "bold" },
  { tag: CM.tags.operatorKeyword, color: "#00c" },
  { tag: CM.tags.special(CM.tags.variableName), color: "#256" },
  { tag: CM.tags.operator, color: "#a0a" },
]);

let textChanged = () => {};
const view = new CM.EditorView({
  parent: document.getElementById("editor"),
  state: CM.EditorState.create({
    doc: EXAMPLE,
    extensions: [
      CM.lineNumbers(), CM.highlightActiveLineGutter(), CM.history(), CM.drawSelection(),
      CM.highlightActiveLine(), CM.bracketMatching(), CM.lintGutter(),
      CM.keymap.of([...CM.defaultKeymap, ...CM.historyKeymap, CM.indentWithTab,
        { key: "Ctrl-Enter", run: () => { check(); return true; } }]),
      litmus, CM.syntaxHighlighting(style),
      CM.EditorView.updateListener.of((u) => { if (u.docChanged) textChanged(); }),
    ],
  }),
});
window.gdrcheckEditor = view;  // for the browser test and the console

const $ = (id) => document.getElementById(id);
const text = () => view.state.doc.toString();
function setText(t) {
  view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: t } });
}
function status(s) { $("status").textContent = s; }
function esc(s) {
  return String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;",
    '"': "&quot;" })[c]);
}

async function api(path, body) {
  const r = await fetch(path, body === undefined ? {} : {
    method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body) });
  let data;
  try { data = await r.json(); } catch (e) { data = { error: { message: `${r.status} ${r.statusText}` } }; }
  return data;
}

// -- errors at their line and column ----------------------------------------------
// moveCursor: false for the answers that come as you type (accepting), which must not
// take the cursor from where you are typing
function showError(err, moveCursor = true) {
  const box = $("error");
  if (!err) {
    box.hidden = true; box.textContent = "";
    view.dispatch(CM.setDiagnostics(view.state, []));
    return;
  }
  box.hidden = false;
  const where = err.line ? `line ${err.line}, column ${err.col || 1}: ` : "";
  box.textContent = where + err.message;
  box.dataset.line = err.line || "";
  box.dataset.col = err.col || "";
  if (err.line && err.line <= view.state.doc.lines) {
    const line = view.state.doc.line(err.line);
    const from = Math.min(line.from + Math.max((err.col || 1) - 1, 0), line.to);
    const to = Math.min(from + 1, view.state.doc.length);
    view.dispatch(CM.setDiagnostics(view.state, [{ from, to,
      severity: "error", message: err.message }]));
    if (moveCursor) view.dispatch({ selection: { anchor: from }, scrollIntoView: true });
  }
}

// -- models and variants ---------------------------------------------------------
let catalogue = [];
let accepting = [];
function renderPickers() {
  const ticked = new Set([...document.querySelectorAll("#models input:checked")].map((i) => i.value));
  const fresh = $("models").dataset.for !== accepting.join(",");
  $("models").dataset.for = accepting.join(",");
  $("models").innerHTML = accepting.map((m) => {
    const info = catalogue.find((c) => c.name === m) || { title: "" };
    const on = fresh || ticked.has(m) ? "checked" : "";
    return `<label title="${esc(info.title)}"><input type="checkbox" value="${esc(m)}" ${on}> ${esc(m)}</label>`;
  }).join("") || "<span class=small>no model accepts this test</span>";
  const vticked = new Set([...document.querySelectorAll("#variants input:checked")].map((i) => i.value));
  const names = new Map();
  for (const m of accepting) {
    for (const v of (catalogue.find((c) => c.name === m) || { variants: [] }).variants) {
      if (!names.has(v.name)) names.set(v.name, v.doc);
    }
  }
  $("variants").innerHTML = [...names].sort().map(([v, doc]) =>
    `<label title="${esc(doc)}"><input type="checkbox" value="${esc(v)}" ${vticked.has(v) ? "checked" : ""}> ${esc(v)}</label>`).join("");
}
function chosen() {
  return {
    models: [...document.querySelectorAll("#models input:checked")].map((i) => i.value),
    variants: [...document.querySelectorAll("#variants input:checked")].map((i) => i.value),
    liveness: $("liveness").checked,
  };
}
let acceptTimer = null;
textChanged = () => {
  document.body.dataset.accepting = "pending";  // the pickers are for an older text
  clearTimeout(acceptTimer);
  acceptTimer = setTimeout(refreshAccepting, 400);
};
async function refreshAccepting() {
  clearTimeout(acceptTimer);  // called directly: the pending one would ask again
  const sent = text();
  const out = await api("/api/accepting", { text: sent });
  if (text() !== sent) return;  // typed since: a later answer comes
  document.body.dataset.accepting = "done";
  if (out.error) { showError(out.error, false); return; }
  showError(null);
  accepting = out.models;
  renderPickers();
}

// -- the library -----------------------------------------------------------------
let library = [];
function renderLibrary() {
  const f = $("library-filter").value.toLowerCase();
  let html = "", group = null;
  for (const t of library) {
    if (f && !t.id.toLowerCase().includes(f)) continue;
    if (t.group !== group) { group = t.group; html += `<h3>${esc(group)}</h3>`; }
    html += `<a href="#" data-id="${esc(t.id)}">${esc(t.name)}</a>`;
  }
  $("library-list").innerHTML = html;
}
$("library-filter").addEventListener("input", renderLibrary);
$("library-list").addEventListener("click", async (ev) => {
  const a = ev.target.closest("a[data-id]");
  if (!a) return;
  ev.preventDefault();
  const out = await api("/api/library/" + a.dataset.id.split("/").map(encodeURIComponent).join("/"));
  if (out.text !== undefined) { setText(out.text); status(`loaded ${out.id}`); refreshAccepting(); }
  else showError(out.error);
});

// -- check: the verdict table, the explanation, the picture ----------------------
let vizReady = Viz.instance();
let results = [];
async function draw(i) {
  const r = results[i];
  document.querySelectorAll("#verdicts tbody tr").forEach((tr, j) =>
    tr.classList.toggle("selected", j === i));
  $("explanation").textContent = r ? (r.explanation_text || (r.error && r.error.message) || "") : "";
  const pic = $("picture"), hang = $("hang-picture");
  pic.innerHTML = "";
  hang.innerHTML = "";
  if (!r) return;
  const viz = await vizReady;
  // the stuck execution of a Hang (liveness), with the reads repeated forever in bold
  for (const [el, dot] of [[pic, r.dot], [hang, r.hang_dot]]) {
    if (!dot) continue;
    try { el.appendChild(viz.renderSVGElement(dot)); }
    catch (e) { el.textContent = "could not draw: " + e; }
  }
}
function verdictRow(r) {
  if (!r.record) {
    return `<tr class="error"><td>${esc(r.model)}</td><td class="v-Error">Error</td><td></td><td></td><td></td><td>${esc(r.error.message)}</td><td></td></tr>`;
  }
  const rec = r.record;
  const want = rec.expect ? rec.expect.verdict : "";
  const met = rec.expect ? (rec.expect.met ? "✓" : "✗") : "";
  const cls = rec.expect ? (rec.expect.met ? "met" : "mismatch") : "";
  const notes = [...rec.axioms, ...rec.flags.map((f) => "flag " + f)];
  if (rec.vacuous) notes.push("vacuous");
  if (rec.liveness.length) notes.push("may hang");
  return `<tr><td>${esc(rec.model)}</td><td class="v-${esc(rec.verdict)}">${esc(rec.verdict)}</td>` +
    `<td>${esc(want)}</td><td class="${cls}">${met}</td><td>${(rec.time * 1000).toFixed(1)}</td>` +
    `<td>${esc(notes.join(", ") || "-")}</td>` +
    `<td class="live-${esc(rec.live || "none")}" title="${esc((rec.liveness || []).join("; ") || rec.live_reason || "")}">${esc(rec.live || "-")}</td></tr>`;
}
async function check() {
  status("checking…");
  const t0 = performance.now();
  $("sweeps").innerHTML = "";
  const out = await api("/api/check", { text: text(), ...chosen() });
  const ms = performance.now() - t0;
  if (out.error) { showError(out.error); status(out.status || "error"); return; }
  showError(null);
  results = out.results;
  const firstError = results.find((r) => r.error && r.error.line);
  if (firstError) showError(firstError.error);
  const table = $("verdicts");
  table.hidden = false;
  table.querySelector("tbody").innerHTML = results.map(verdictRow).join("");
  table.querySelectorAll("tbody tr").forEach((tr, i) => tr.addEventListener("click", () => draw(i)));
  const pick = results.findIndex((r) => r.dot);
  await draw(pick < 0 ? 0 : pick);
  status(`${out.test}: ${results.length} model(s) in ${ms.toFixed(0)} ms`);
  document.body.dataset.checked = String(Number(document.body.dataset.checked || 0) + 1);
}
$("check").addEventListener("click", check);

// -- sweep: every combination of each model's variants ---------------------------
$("sweep").addEventListener("click", async () => {
  status("sweeping…");
  const out = await api("/api/sweep", { text: text(), models: chosen().models });
  if (out.error) { showError(out.error); status(out.status || "error"); return; }
  showError(null);
  $("sweeps").innerHTML = out.sweeps.map((s) => {
    if (s.error) return `<p>${esc(s.model)}: ${esc(s.error.message)}</p>`;
    const rows = s.combinations.map((c) =>
      `<tr><td>${esc(c.variants.join("+") || "(none)")}</td><td class="v-${esc(c.verdict)}">${esc(c.verdict)}</td>` +
      `<td>${esc(c.expect || "")}</td></tr>`).join("");
    const flips = s.flips.map((f) => `${f.variants.join("+")} → ${f.verdict}`).join("; ");
    return `<h3>sweep ${esc(s.model)} (default ${esc(s.default)})</h3>` +
      `<div class=small>can change: ${esc(flips || "nothing")}; inert: ${esc(s.inert.join(", ") || "-")}</div>` +
      `<table class="sweep"><tr><th>variants</th><th>verdict</th><th>expected</th></tr>${rows}</table>`;
  }).join("");
  status(`swept ${out.sweeps.length} model(s)`);
});

// -- fix: the cheapest strengthenings that forbid the outcome under every model -------
$("fix").addEventListener("click", async () => {
  status("fixing…");
  const out = await api("/api/fix", { text: text(), ...chosen() });
  if (out.error) { showError(out.error); status(out.status || "error"); return; }
  showError(null);
  const f = out.fix;
  const lines = [`Fix ${f.test} (${f.status}): before ${Object.entries(f.before).map(([m, v]) => `${m} ${v}`).join(", ")}`];
  f.repairs.forEach((r, n) => {
    lines.push(`Repair ${n + 1} (cost ${r.cost}):`);
    r.edits.forEach((e) => lines.push(`  ${e.text} [${e.entry}, cost ${e.cost}]`));
    r.diff.forEach((d) => lines.push(`  ${d}`));
    lines.push("After " + Object.entries(r.verdicts).map(([m, v]) => `${m} ${v}`).join(", "));
  });
  if (f.status === "impossible") lines.push("No set of catalogued strengthenings forbids the outcome.");
  if (f.reason) lines.push(`Unknown: ${f.reason}`);
  lines.push(`${f.queries} candidate set(s) checked, ${f.candidates} candidate edits`);
  $("fixes").textContent = lines.join("\n");
  status(`fix: ${f.status}`);
});

// -- share link: the test in the URL's fragment, deflated, base64url -------------
function b64url(bytes) {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}
function unb64url(s) {
  const bin = atob(s.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}
async function pipe(bytes, stream) {
  const out = new Response(new Blob([bytes]).stream().pipeThrough(stream));
  return new Uint8Array(await out.arrayBuffer());
}
async function encodeTest(t) {
  const raw = new TextEncoder().encode(t);
  if (typeof CompressionStream === "function") {
    return "z=" + b64url(await pipe(raw, new CompressionStream("deflate-raw")));
  }
  return "t=" + b64url(raw);
}
async function decodeTest(frag) {
  const [kind, data] = [frag.slice(0, 2), frag.slice(2)];
  if (kind === "z=") return new TextDecoder().decode(await pipe(unb64url(data), new DecompressionStream("deflate-raw")));
  if (kind === "t=") return new TextDecoder().decode(unb64url(data));
  return null;
}
$("share").addEventListener("click", async () => {
  const frag = await encodeTest(text());
  history.replaceState(null, "", "#" + frag);
  const box = $("share-link");
  box.hidden = false;
  box.value = location.href;
  box.select();
  try { await navigator.clipboard.writeText(location.href); status("link copied"); }
  catch (e) { status("link in the box below"); }
});

// -- start -----------------------------------------------------------------------
(async () => {
  const frag = location.hash.slice(1);
  if (frag) {
    try { const t = await decodeTest(frag); if (t !== null) setText(t); }
    catch (e) { status("the link's test could not be read"); }
  }
  const [m, lib] = await Promise.all([api("/api/models"), api("/api/library")]);
  catalogue = m.models || [];
  library = lib.tests || [];
  renderLibrary();
  await refreshAccepting();
  document.body.dataset.ready = "1";
})();
