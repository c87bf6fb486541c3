// Run by nginxgen.web.build under Node at build time: Pyodide started once, the page's pure
// wheels unpacked into it and nginxgen's lint path imported, and its memory written out. The
// page restores that instead of starting Python (about a tenth of the time), then unpacks the
// same wheels' files again: what was imported is already in memory, the rest is read from them.
//   node snapshot.mjs PYODIDE_DIR WHEELS_DIR OUT WHEEL...
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [pyodideDir, wheelsDir, out, ...wheels] = process.argv.slice(2);
const { loadPyodide } = await import(pathToFileURL(join(pyodideDir, "pyodide.mjs")).href);
const py = await loadPyodide({ indexURL: pyodideDir + "/", _makeSnapshot: true });
// not loadPackage: it leaves JavaScript references behind, which a snapshot cannot hold
for (const wheel of wheels) py.FS.writeFile(`/tmp/${wheel}`, readFileSync(join(wheelsDir, wheel)));
py.runPython(`
import importlib, sysconfig, zipfile
for name in ${JSON.stringify(wheels)}:
    with zipfile.ZipFile("/tmp/" + name) as wheel:
        wheel.extractall(sysconfig.get_paths()["purelib"])
importlib.invalidate_caches()
import jinja2, markupsafe, yaml
import nginxgen.web.page
from nginxgen.lint.rules import catalog
catalog()  # every rule module, as the Rules view and a lint of a full tree import them
`);
writeFileSync(out, py.makeMemorySnapshot());
