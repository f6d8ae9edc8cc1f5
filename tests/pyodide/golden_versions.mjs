// The golden model hashes on more Python versions: CPython 3.12 and 3.13 (older Pyodide
// releases, i.e. CPython compiled to WebAssembly) and the page's own Pyodide (3.14).
//
//   node tests/pyodide/golden_versions.mjs            # every runtime, one line each
//   node tests/pyodide/golden_versions.mjs DIR        # one runtime (a Pyodide folder)
//
// For each runtime it installs the built subwordlab wheel (dist/site/wheels/, the one the page
// ships), trains every case of tests/unit/golden_json.py and compares the SHA-256 of each
// model's to_json() with tests/unit/golden_json_hashes.json (written on CPython 3.11):
//
//   Python 3.12.7 (Unicode 15.0.0; Pyodide 0.27.8): 17/17 golden hashes equal
//
// Equal hashes prove that the same spec and corpus give a byte-identical model there, even
// where the runtime's unicodedata is older than the core's pinned Unicode tables (the `u16_*`
// cases use characters new in Unicode 15.0-16.0). Exits 1 if any hash differs, naming the
// case; 2 if a runtime or the wheel is missing.
//
// Needs `python build/build_site.py`: it fetches the pinned older releases (GOLDEN_PYODIDES,
// checked against their npm integrity) into dist/test-assets/pyodide-<version>/. Nothing is
// fetched at run time. Each runtime runs in a child process of its own (they are different
// Emscripten builds; one per process keeps them apart).

import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = fileURLToPath(import.meta.url);
const repo = path.resolve(path.dirname(here), "..", "..");
const testAssets = path.join(repo, "dist", "test-assets");
const pageRuntime = path.join(repo, "dist", "site", "pyodide");
const wheels = path.join(repo, "dist", "site", "wheels");
const golden = path.join(repo, "tests", "unit", "golden_json.py");

function die(message) {
  console.error(`tests/pyodide/golden_versions: ${message}`);
  process.exit(2);
}

// --- the parent: one child process per runtime, one line each --------------------------
function runAll() {
  const older = existsSync(testAssets)
    ? readdirSync(testAssets).filter((d) => d.startsWith("pyodide-")).sort().map((d) => path.join(testAssets, d))
    : [];
  if (!older.length) die(`no older Pyodide in ${testAssets}; run: python build/build_site.py`);
  const t0 = performance.now();
  let status = 0;
  for (const dir of [...older, pageRuntime]) {
    const child = spawnSync(process.execPath, [here, dir], { stdio: "inherit" });
    status = Math.max(status, child.status ?? 2);
  }
  console.log(`tests/pyodide/golden_versions: ${older.length + 1} runtimes in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return status;
}

// --- a child: one runtime -----------------------------------------------------------------
// Runs inside Pyodide: golden_json.py straight from the repository (it reads its hashes and
// corpus beside itself), subwordlab from the installed wheel; returns JSON for the report.
const HASH_ALL = `
import importlib.util, json, sys, unicodedata
sys.dont_write_bytecode = True   # never write .pyc files into the mounted repository
import subwordlab
assert "site-packages" in subwordlab.__file__, subwordlab.__file__  # the wheel, not the tree
spec = importlib.util.spec_from_file_location("golden_json", GOLDEN)
golden_json = importlib.util.module_from_spec(spec)
spec.loader.exec_module(golden_json)
json.dumps({
    "python": sys.version.split()[0],
    "unicode": unicodedata.unidata_version,
    "expected": json.loads(golden_json.HASHES.read_text()),
    "now": golden_json.current_hashes(),
})
`;

async function runOne(dir) {
  if (!existsSync(path.join(dir, "pyodide.mjs"))) die(`no Pyodide in ${dir}; run: python build/build_site.py`);
  const wheel = existsSync(wheels) && readdirSync(wheels).find((f) => /^subwordlab-.*\.whl$/.test(f));
  if (!wheel) die(`no subwordlab wheel in ${wheels}; run: python build/build_site.py`);

  const { loadPyodide } = await import(pathToFileURL(path.join(dir, "pyodide.mjs")).href);
  const pyodide = await loadPyodide({
    indexURL: dir + path.sep,
    packageBaseUrl: dir + path.sep, // never fall back to the CDN (no package is loaded anyway)
    lockFileURL: path.join(dir, "pyodide-lock.json"),
  });
  // A wheel is a zip: unpacked straight into site-packages, as the page's lock installs it.
  const sitePackages = pyodide.runPython("import sysconfig; sysconfig.get_path('purelib')");
  pyodide.unpackArchive(new Uint8Array(readFileSync(path.join(wheels, wheel))), "wheel", { extractDir: sitePackages });
  pyodide.FS.mkdirTree(repo);
  pyodide.mountNodeFS(repo, repo);
  pyodide.globals.set("GOLDEN", golden);
  const { python, unicode, expected, now } = JSON.parse(pyodide.runPython(HASH_ALL));

  // Compare case by case; a case missing on either side is a difference too.
  const cases = [...new Set([...Object.keys(expected), ...Object.keys(now)])].sort();
  const bad = cases.filter((c) => expected[c] !== now[c]);
  const where = `Python ${python} (Unicode ${unicode}; Pyodide ${pyodide.version})`;
  console.log(`${where}: ${cases.length - bad.length}/${cases.length} golden hashes equal`);
  for (const c of bad) {
    console.log(`  DIFFERS ${c}: got ${now[c] ?? "(not trained)"}, golden ${expected[c] ?? "(none)"}`);
  }
  if (bad.length) {
    console.log("  the same spec and corpus gave another model on this runtime: find the runtime call " +
      "the core does not pin (py_core/subwordlab/text/unicode_data.py, regex_compat.py, normalizers)");
  }
  return bad.length ? 1 : 0;
}

// subtle: an uncaught error would make Node print the whole minified Pyodide source line.
const target = process.argv[2];
(target ? runOne(path.resolve(target)) : Promise.resolve(runAll())).then(
  (code) => process.exit(code),
  (error) => die(error && error.stack ? error.stack.split("\n").slice(0, 12).join("\n") : String(error)),
);
