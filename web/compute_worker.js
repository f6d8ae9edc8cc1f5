// The compute session's worker (subwordlab_web/session.py says what it does, and dom.py's
// ComputeWorker how the page uses it): the page's one Pyodide besides its own, with the page's
// two wheels: training, the exercises and the pattern guard's checks run here, off the main
// thread. The page terminates it to cancel a task or to stop a pattern check that is late
// (a regex that backtracks catastrophically), and starts a fresh one.
// Messages: from the page [id, requestJSON, corpus or null (the worker keeps the last one)];
// to the page {boot: ms} once ready, {bootError: text}, then for each request
// {id, reply: JSON} as often as there is news, and {id, end: true} or {id, failed: text}.
// A module worker: Pyodide refuses classic workers.
import { loadPyodide } from "./pyodide/pyodide.mjs";
import { fetchOk, fetchWheels, installWheels } from "./wheels.mjs";

const ready = (async () => {
  const started = performance.now();
  const indexURL = new URL("./pyodide/", self.location.href).href;
  const lockURL = indexURL + "pyodide-lock.json";
  // the wheels download while the runtime boots, as on the page (wheels.mjs)
  const lock = fetchOk(lockURL).then((response) => response.json());
  const wheels = fetchWheels(lock, lockURL);
  // (null reaches Python as None, as on the page: bootstrap.js says why)
  const pyodide = await loadPyodide({ indexURL, lockFileContents: lock, convertNullToNone: true });
  installWheels(pyodide, await wheels);
  const session = pyodide.pyimport("subwordlab_web.session");
  session.warm_up(); // (the first run is the slowest: session.py says why)
  const serve = session.serve;
  postMessage({ boot: performance.now() - started });
  return serve;
})();
ready.catch((error) => postMessage({ bootError: String((error && error.message) || error) }));

onmessage = async (event) => {
  const [id, request, corpus] = event.data;
  const serve = await ready;
  try {
    serve(request, corpus, (reply) => postMessage({ id, reply }));
    postMessage({ id, end: true });
  } catch (error) {
    postMessage({ id, failed: String((error && error.message) || error) });
  }
};
