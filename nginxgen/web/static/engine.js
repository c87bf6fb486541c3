// nginxgen in Pyodide, in a worker of its own: the page stays responsive while Python loads
// and runs. Messages in: {start: {base, lint, generate}} once, then {id, fn, args}; out:
// {event} as each stage is ready, {id, result} or {id, error} for each call.
import { loadPyodide } from "./pyodide/pyodide.mjs";

let py = null;
let page = null;
const calls = {
  generate: (state) => page.generate(state),
  lint: (text, name, nginx, tls) => page.lint(text, name, nginx, tls),
  python: (code) => py.runPython(code), // for the tests and the benchmark: their own timing
};

async function start({ base, lint, generate }) {
  const quiet = { messageCallback: () => {} };
  py = await loadPyodide({ indexURL: new URL("pyodide/", base).href });
  self.postMessage({ event: "runtime" });
  await py.loadPackage(lint.map((w) => new URL(`wheels/${w}`, base).href), quiet);
  self.postMessage({ event: "lintWheels" });
  page = py.pyimport("nginxgen.web.page");
  self.postMessage({ event: "lintReady" });
  await py.loadPackage(generate.map((w) => new URL(`wheels/${w}`, base).href), quiet);
  self.postMessage({ event: "generateReady" });
}

self.onmessage = ({ data }) => {
  if (data.start) {
    start(data.start).catch((error) => self.postMessage({ event: "failed", error: String(error) }));
    return;
  }
  try {
    const result = calls[data.fn](...data.args);
    self.postMessage({ id: data.id, result: typeof result === "string" ? result : (result && result.toJs ? result.toJs() : result) });
  } catch (error) {
    self.postMessage({ id: data.id, error: String(error) });
  }
};
