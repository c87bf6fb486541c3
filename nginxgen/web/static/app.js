// The page's glue: the form and views in the DOM, the state in the URL, and nginxgen itself
// (Python, in Pyodide, in a worker: engine.js) loaded behind the first screen, which the build
// computed beforehand.
const data = JSON.parse(document.getElementById("data").textContent);
const catalogue = data.catalogue;
const times = { start: performance.now() }; // read by the benchmark and the tests
const app = { times, lintReady: false, generateReady: false, last: null };
window.nginxgen = app;

// --- the engine: calls answered by the worker, in order ---

const worker = new Worker(new URL("engine.js", import.meta.url), { type: "module" });
const waiting = new Map();
let nextCall = 0;

function engine(fn, ...args) {
  const id = ++nextCall;
  return new Promise((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    worker.postMessage({ id, fn, args });
  });
}
app.engine = engine; // the tests' and the benchmark's way in, as the views call it
app.python = (code) => engine("python", code);

const $ = (id) => document.getElementById(id);
const esc = (text) => String(text).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
const form = $("generate-form");
const fields = Object.keys(catalogue.defaults);

// --- the URL: #/view?key=value (generate: the form's fields that differ from the defaults) ---

function route() {
  const hash = location.hash.replace(/^#\/?/, "");
  const [view, query] = hash.split("?");
  return { view: ["generate", "lint", "presets", "rules"].includes(view) ? view : "generate", params: new URLSearchParams(query || "") };
}

function setRoute(view, params) {
  const query = params.toString();
  history.replaceState(null, "", `#/${view}${query ? "?" + query : ""}`);
}

function stateFromParams(params) {
  const state = { ...catalogue.defaults };
  for (const key of fields) if (params.has(key)) state[key] = params.get(key);
  return state;
}

function changedParams(state) {
  const params = new URLSearchParams();
  for (const key of fields) if (state[key] !== catalogue.defaults[key]) params.set(key, state[key]);
  return params;
}

function readForm() {
  const state = {};
  for (const key of fields) state[key] = form.elements[key] ? form.elements[key].value.trim() : catalogue.defaults[key];
  return state;
}

function fillForm(state) {
  for (const key of fields) if (form.elements[key]) form.elements[key].value = state[key];
}

// --- shared pieces ---

function download(name, text) {
  const link = document.createElement("a");
  link.href = URL.createObjectURL(new Blob([text], { type: "text/plain" }));
  link.download = name;
  link.click();
  URL.revokeObjectURL(link.href);
}

function fileBox(name, text, kind = "") {
  const box = document.createElement("div");
  box.className = "file";
  box.innerHTML = `<div class="file-head"><b>${esc(name)}</b><button type="button" data-act="copy">Copy</button><button type="button" data-act="download">Download</button></div><pre class="${kind}"></pre>`;
  const pre = box.querySelector("pre");
  if (kind === "diff") pre.innerHTML = diffHtml(text);
  else pre.textContent = text;
  box.querySelector('[data-act="copy"]').onclick = () => navigator.clipboard.writeText(text);
  box.querySelector('[data-act="download"]').onclick = () => download(name.split("/").pop(), text);
  box.dataset.name = name;
  return box;
}

function diffHtml(text) {
  return text.split("\n").map((line) => {
    const kind = line.startsWith("@@") ? "hunk" : line.startsWith("+") && !line.startsWith("+++") ? "add" : line.startsWith("-") && !line.startsWith("---") ? "del" : "";
    return `<span class="${kind}">${esc(line)}</span>`;
  }).join("\n");
}

const rulesByCode = Object.fromEntries(catalogue.rules.map((rule) => [rule.code, rule]));

function findingHtml(f, withDoc = true) {
  const fix = f.autofix ? `<span class="badge ${f.autofix}">${f.autofix} fix</span>` : "";
  const doc = withDoc && rulesByCode[f.code] ? `<details><summary>${esc(f.code)} ${esc(f.name)}: the rule</summary><div class="doc">${markdown(rulesByCode[f.code].page)}</div></details>` : "";
  return `<div class="finding ${f.severity}" data-code="${esc(f.code)}" data-line="${f.line}"><div><b>${esc(f.code)}</b> <span class="badge">${f.severity}</span>${fix} <span class="where">${esc(f.file)}:${f.line}</span></div><div>${esc(f.message)}</div><div class="fix">fix: ${esc(f.fix)}</div>${doc}</div>`;
}

function markdown(text) {
  // enough Markdown for the rule pages: headings, paragraphs, lists, fenced code, inline marks
  const out = [];
  text.split(/(\n```[^\n]*\n[\s\S]*?\n```)/).forEach((part) => {
    const fenced = part.match(/^\n```[^\n]*\n([\s\S]*?)\n```$/);
    if (fenced) { out.push(`<pre>${esc(fenced[1])}</pre>`); return; }
    for (const block of part.split(/\n{2,}/)) {
      const b = block.trim();
      if (!b) continue;
      const heading = b.match(/^(#{1,3}) (.*)$/);
      if (heading) { out.push(`<h${heading[1].length + 1}>${inline(heading[2])}</h${heading[1].length + 1}>`); continue; }
      if (/^[-*] /.test(b)) { out.push(`<ul>${b.split(/\n(?=[-*] )/).map((item) => `<li>${inline(item.replace(/^[-*] /, ""))}</li>`).join("")}</ul>`); continue; }
      out.push(`<p>${inline(b)}</p>`);
    }
  });
  return out.join("\n");
}

function inline(text) {
  return esc(text)
    .replace(/`([^`]+)`/g, "<code>$1</code>")
    .replace(/\*\*([^*]+)\*\*/g, "<b>$1</b>")
    .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (m, label, url) => /^https?:/.test(url) ? `<a href="${url}" rel="noreferrer">${label}</a>` : label);
}

// --- Generate ---

function showGenerated(result, state) {
  $("generate-error").hidden = !result.error;
  $("generate-error").textContent = result.error || "";
  $("generate-notes").innerHTML = (result.notes || []).map((n) => `<li>${esc(n)}</li>`).join("");
  const files = $("generate-files");
  files.innerHTML = "";
  if (result.files) {
    for (const [name, text] of Object.entries(result.files)) files.append(fileBox(name, text));
  }
  files.append(fileBox("site.yaml", result.site));
  const command = `nginxgen generate --config site.yaml --nginx-version ${state.nginx || catalogue.targets.default_nginx} --tls-library ${state.tls || catalogue.targets.default_library} --out /etc/nginx/nginxgen`;
  files.lastChild.insertAdjacentHTML("beforeend", `<pre>${esc(command)}</pre>`);
  const lint = result.lint || [];
  $("generate-lint").innerHTML = result.error ? "" : lint.length ? lint.map((f) => findingHtml(f)).join("") : `<p class="clean">No findings: <code>nginxgen lint /etc/nginx/nginxgen/nginx.conf</code> is clean for ${esc(result.target)}.</p>`;
  $("generate-status").textContent = result.target ? `For ${result.target}.` : "";
  app.last = result;
}

let shownFor = 0; // the latest form state asked of the engine: older answers are dropped

async function generate() {
  const state = readForm();
  setRoute("generate", changedParams(state));
  const key = JSON.stringify(state);
  const asked = ++shownFor;
  if (app.generateReady) {
    const result = JSON.parse(await engine("generate", key));
    if (asked !== shownFor) return;
    showGenerated(result, state);
    app.last = { ...result, source: "engine" };
    if (!times.generateReady) times.generateReady = performance.now();
  } else if (key === JSON.stringify(data.first.state)) {
    showGenerated(data.first.result, state);
    app.last = { ...data.first.result, source: "build" };
  } else {
    $("generate-status").textContent = "Computing once the engine has loaded…";
  }
}

function presetDefaults(name) {
  // the preset's site defaults as the form's "preset's" choices say them
  const preset = catalogue.presets.find((p) => p.name === name);
  const hsts = preset && preset.site && preset.site.hsts;
  const bits = [];
  if (preset && preset.site) bits.push(`HTTP/2 ${preset.site.http2 === false ? "off" : "on"}`);
  if (hsts) bits.push(`HSTS max-age ${hsts.max_age}${hsts.include_subdomains ? ", includeSubDomains" : ""}${hsts.preload ? ", preload" : ""}`);
  return bits.join("; ");
}

// --- Lint ---

function dumpOffsets(text) {
  // file -> the dump line its first line is on (nginx -T: "# configuration file PATH:")
  const offsets = {};
  text.split("\n").forEach((line, index) => {
    const mark = line.match(/^# configuration file (.+):\s*$/);
    if (mark && !(mark[1].trim() in offsets)) offsets[mark[1].trim()] = index + 1;
  });
  return offsets;
}

let lintFor = 0;

async function runLint() {
  if (!app.lintReady) return;
  const text = $("lint-text").value;
  const name = $("lint-name").value.trim() || "nginx.conf";
  const started = performance.now();
  const asked = ++lintFor;
  const result = JSON.parse(await engine("lint", text, name, $("lint-nginx").value.trim(), $("lint-tls").value.trim()));
  if (asked !== lintFor) return;
  times.lastLint = performance.now() - started;
  app.lastLint = result;
  $("lint-error").hidden = !result.error;
  $("lint-error").textContent = result.error || "";
  if (result.error) { $("lint-out").innerHTML = ""; $("lint-fixes").innerHTML = ""; return; }
  $("lint-status").textContent = `${result.findings.length} finding(s) for ${result.target}, in ${Math.round(times.lastLint)} ms.`;
  const offsets = dumpOffsets(text);
  const byLine = {};
  for (const f of result.findings) {
    const line = f.file in offsets ? offsets[f.file] + f.line : f.line;
    (byLine[line] = byLine[line] || []).push(f);
  }
  const lines = text.split("\n");
  const code = document.createElement("div");
  code.className = "code";
  code.innerHTML = lines.map((line, index) => {
    const hits = byLine[index + 1] || [];
    const worst = hits.some((f) => f.severity === "error") ? " error" : "";
    const marks = hits.length ? `<div class="marks">${hits.map((f) => findingHtml(f)).join("")}</div>` : "";
    return `<div class="line${hits.length ? " hit" + worst : ""}" id="L${index + 1}"><span class="no">${index + 1}</span>${esc(line)}</div>${marks}`;
  }).join("");
  const elsewhere = result.findings.filter((f) => !(f.file in offsets) && f.file !== name);
  $("lint-out").innerHTML = elsewhere.length ? elsewhere.map((f) => findingHtml(f)).join("") : "";
  $("lint-out").append(code);
  const fixes = $("lint-fixes");
  fixes.innerHTML = "";
  for (const [kind, title, flag] of [["safe", "Safe fixes", "--fix"], ["unsafe", "Safe and unsafe fixes", "--unsafe-fixes"]]) {
    const fix = result.fixes[kind];
    const head = document.createElement("h3");
    head.textContent = `${title} (nginxgen lint ${flag}): ${fix.fixed.length ? fix.fixed.join(", ") : "none"}`;
    fixes.append(head);
    if (!fix.diff) continue;
    const box = fileBox(`${kind}-fixes.diff`, fix.diff, "diff");
    box.classList.add(kind);
    if (Object.keys(fix.changed).length === 1 && name in fix.changed) {
      const apply = document.createElement("button");
      apply.type = "button";
      apply.textContent = "Apply";
      apply.onclick = () => { $("lint-text").value = fix.changed[name]; runLint(); };
      box.querySelector(".file-head").append(apply);
    }
    fixes.append(box);
  }
}

// --- Presets and rules ---

function showPresets() {
  $("presets-list").innerHTML = catalogue.presets.map((p) => `<div class="preset" id="preset-${esc(p.name)}"><h3>${esc(p.name)}</h3><p>${esc(p.summary)}</p>${p.extends ? `<p>Extends <b>${esc(p.extends)}</b>.</p>` : ""}<p>${esc(p.description)}</p><p class="source">Sources: ${inline(p.source).replace(/(https?:\/\/[^\s;,)]+)/g, '<a href="$1" rel="noreferrer">$1</a>')}</p><details><summary>What it sets (${esc(p.name)}.yaml)</summary><pre>${esc(p.text)}</pre></details><p><a href="#/generate?preset=${encodeURIComponent(p.name)}">Generate with it</a></p></div>`).join("");
}

function showRules(params) {
  const filter = $("rules-filter").value.trim().toLowerCase();
  const code = params.get("code") || catalogue.rules[0].code;
  $("rules-list").innerHTML = catalogue.rules
    .filter((r) => !filter || `${r.code} ${r.name} ${r.summary}`.toLowerCase().includes(filter))
    .map((r) => `<li><a href="#/rules?code=${r.code}" class="${r.code === code ? "current" : ""}"><b>${r.code}</b> ${esc(r.name)}</a></li>`).join("");
  const rule = rulesByCode[code];
  $("rule-page").innerHTML = rule ? markdown(rule.page) : `<p>No rule ${esc(code)}.</p>`;
}

// --- views ---

function show() {
  const { view, params } = route();
  for (const name of ["generate", "lint", "presets", "rules"]) $(`view-${name}`).hidden = name !== view;
  document.querySelectorAll("nav a").forEach((a) => a.classList.toggle("current", a.dataset.view === view));
  if (view === "generate") { fillForm(stateFromParams(params)); generate(); }
  if (view === "presets") showPresets();
  if (view === "rules") showRules(params);
}

function setUp() {
  $("version").textContent = catalogue.version;
  $("preset-select").innerHTML = catalogue.presets.map((p) => `<option value="${esc(p.name)}" title="${esc(p.summary)}">${esc(p.name)}</option>`).join("");
  $("nginx-releases").innerHTML = catalogue.targets.nginx.map((v) => `<option value="${v}">`).join("");
  $("tls-libraries").innerHTML = catalogue.targets.libraries.flatMap((lib) => lib.versions.length ? lib.versions.map((v) => `<option value="${lib.kind}-${v}">${esc(lib.display)} ${v}</option>`) : [`<option value="${lib.kind}">${esc(lib.display)}</option>`]).join("");
  const systems = catalogue.targets.systems;
  $("system-select").innerHTML += systems.map((s, i) => `<option value="${i}" title="${esc(s.source)}">${esc(s.name)}: nginx ${esc(s.nginx)}, ${esc(s.tls)}</option>`).join("");
  $("system-select").addEventListener("change", (event) => {
    const system = systems[event.target.value];
    if (!system) return;
    form.elements.nginx.value = system.nginx;
    form.elements.tls.value = system.tls;
    event.target.value = "";
    generate();
  });
  for (const input of [form.elements.nginx, $("lint-nginx")]) input.placeholder = catalogue.targets.default_nginx;
  for (const input of [form.elements.tls, $("lint-tls")]) input.placeholder = catalogue.targets.default_library;
  let timer = null;
  form.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(generate, 250); });
  form.addEventListener("change", generate);
  let lintTimer = null;
  $("lint-text").addEventListener("input", () => { clearTimeout(lintTimer); lintTimer = setTimeout(runLint, 300); });
  for (const id of ["lint-name", "lint-nginx", "lint-tls"]) $(id).addEventListener("change", runLint);
  $("lint-run").onclick = runLint;
  $("rules-filter").addEventListener("input", () => showRules(route().params));
  window.addEventListener("hashchange", show);
  show();
  times.firstConfig = performance.now(); // the first screen, from the build, is on screen
}

function startEngine() {
  const status = $("engine");
  const said = {
    runtime: "engine: loading nginxgen",
    lintReady: "engine: lint ready, loading the generator",
    generateReady: "engine: ready",
  };
  worker.onmessage = ({ data: message }) => {
    if (message.id) {
      const call = waiting.get(message.id);
      waiting.delete(message.id);
      if ("error" in message) call.reject(new Error(message.error));
      else call.resolve(message.result);
      return;
    }
    if (message.event === "failed") {
      status.textContent = `engine failed: ${message.error}`;
      console.error(message.error);
      return;
    }
    if (message.event !== "generateReady") times[message.event] = performance.now();
    if (message.event in said) status.textContent = said[message.event];
    if (message.event === "lintReady") {
      app.lintReady = true;
      $("lint-run").disabled = false;
      if (route().view === "lint" && $("lint-text").value) runLint();
    }
    if (message.event === "generateReady") {
      app.generateReady = true;
      status.classList.add("ready");
      // the engine's own answer replaces the build's (the same, a test checks)
      if (route().view === "generate") generate();
      else times.generateReady = performance.now();
    }
  };
  const base = new URL(".", location.href).href;
  worker.postMessage({ start: { base, early: data.wheels.early, late: data.wheels.late, snapshot: data.snapshot } });
}

setUp();
startEngine();
