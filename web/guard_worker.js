// The pattern guard's worker (subwordlab_web/pattern_guard.py says why it exists): its own
// Pyodide with the page's two wheels. It answers each message (a JSON request) with
// pattern_guard.run_request's JSON reply; the page terminates it when a reply is late.
// Messages: from the page [id, request]; to the page {boot: ms} once ready, {bootError: text},
// {id, reply}.
// A module worker: Pyodide refuses classic workers.
import { loadPyodide } from "./pyodide/pyodide.mjs";

const ready = (async () => {
  const started = performance.now();
  const indexURL = new URL("./pyodide/", self.location.href).href;
  const pyodide = await loadPyodide({ indexURL, lockFileURL: indexURL + "pyodide-lock.json" });
  const errors = [];
  await pyodide.loadPackage(["subwordlab", "subwordlab_web"], { messageCallback: () => {}, errorCallback: (m) => errors.push(m) });
  if (errors.length) throw new Error(errors.join("\n"));
  const run = pyodide.pyimport("subwordlab_web.pattern_guard").run_request;
  postMessage({ boot: performance.now() - started });
  return run;
})();
ready.catch((error) => postMessage({ bootError: String((error && error.message) || error) }));

onmessage = async (event) => {
  const [id, request] = event.data;
  const run = await ready;
  postMessage({ id, reply: run(request) });
};
