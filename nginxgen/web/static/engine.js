// nginxgen in Pyodide, in a worker of its own: the page stays responsive while Python loads
// and runs. Messages in: {start: {base, early, late, snapshot}} once, then {id, fn, args}; out:
// {event} as each stage is ready, {id, result} or {id, error} for each call.
import { loadPyodide } from "./pyodide/pyodide.mjs";

let py = null;
let page = null;
const calls = {
  generate: (state) => page.generate(state),
  lint: (text, name, nginx, tls) => page.lint(text, name, nginx, tls),
  python: (code) => py.runPython(code), // for the tests and the benchmark: their own timing
};

async function fetched(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: ${response.status}`);
  return response;
}

async function runtime(base, snapshot) {
  const indexURL = new URL("pyodide/", base).href;
  if (!snapshot) return loadPyodide({ indexURL });
  // Python's memory once started, made at build time (nginxgen/web/snapshot.mjs): restored
  // instead of starting the interpreter, with nginxgen's lint path already imported
  const packed = await fetched(new URL("pyodide/snapshot.bin.gz", base));
  const bytes = await new Response(packed.body.pipeThrough(new DecompressionStream("gzip"))).arrayBuffer();
  return loadPyodide({ indexURL, _loadSnapshot: new Uint8Array(bytes) });
}

async function unpack(base, wheels) {
  // the pure wheels' files, as the snapshot was made with them (loadPackage would do the same
  // for these, but the snapshot cannot be made after it)
  const files = await Promise.all(wheels.map(async (w) => new Uint8Array(await (await fetched(new URL(`wheels/${w}`, base))).arrayBuffer())));
  wheels.forEach((w, i) => py.FS.writeFile(`/tmp/${w}`, files[i]));
  py.runPython(`
import importlib, sysconfig, zipfile
for name in ${JSON.stringify(wheels)}:
    with zipfile.ZipFile("/tmp/" + name) as wheel:
        wheel.extractall(sysconfig.get_paths()["purelib"])
importlib.invalidate_caches()
`);
}

async function start({ base, early, late, snapshot }) {
  py = await runtime(base, snapshot);
  self.postMessage({ event: "runtime" });
  await unpack(base, early);
  self.postMessage({ event: "lintWheels" });
  page = py.pyimport("nginxgen.web.page");
  self.postMessage({ event: "lintReady" });
  const quiet = { messageCallback: () => {} };
  await py.loadPackage(late.map((w) => new URL(`wheels/${w}`, base).href), quiet);
  self.postMessage({ event: "generateReady" });
}

self.onmessage = ({ data }) => {
  if (data.start) {
    start(data.start).catch((error) => self.postMessage({ event: "failed", error: String(error) }));
    return;
  }
  try {
    const result = calls[data.fn](...data.args);
    self.postMessage({ id: data.id, result: result && result.toJs ? result.toJs() : result });
  } catch (error) {
    self.postMessage({ id: data.id, error: String(error) });
  }
};
