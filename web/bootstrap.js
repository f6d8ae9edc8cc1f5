// Subword Lab bootstrap: start Pyodide from the vendored copy, install our two wheels
// (listed in the served lock file), and hand over to Python's subwordlab_web.start().
// Each stage is shown on the page; tests wait for body[data-ready], and a failure shows
// the stage name and the error and sets body[data-boot-error].

const times = (window.__bootTimes = { scriptStart: performance.now() });
const $ = (id) => document.getElementById(id);
let stage = "loading the page";

function setStage(name, text) {
  stage = name;
  $("boot-stage").textContent = text;
}

function fail(error) {
  const message = error && error.message ? error.message : String(error);
  console.error(`Subword Lab failed while ${stage}:`, error);
  $("boot-error-stage").textContent = stage;
  $("boot-error-message").textContent = message;
  $("boot-error").hidden = false;
  document.querySelector(".boot-card").hidden = true;
  document.body.dataset.bootError = stage;
}

async function boot() {
  const pyodideURL = new URL("./pyodide/", document.baseURI).href;

  setStage("loading the Python runtime", "Loading the Python runtime…");
  const { loadPyodide } = await import(pyodideURL + "pyodide.mjs");
  const pyodide = await loadPyodide({
    indexURL: pyodideURL,
    lockFileURL: pyodideURL + "pyodide-lock.json",
  });
  times.pyodideLoaded = performance.now();

  setStage("installing Subword Lab", "Installing Subword Lab…");
  const loadErrors = [];
  await pyodide.loadPackage(["subwordlab", "subwordlab_web"], {
    messageCallback: () => {},
    errorCallback: (msg) => loadErrors.push(msg),
  });
  // loadPackage never throws: it reports through errorCallback, so fail here ourselves.
  if (loadErrors.length) throw new Error(loadErrors.join("\n"));
  times.packagesLoaded = performance.now();

  setStage("starting the interface", "Starting the interface…");
  const web = pyodide.pyimport("subwordlab_web");
  try {
    web.start();
  } finally {
    web.destroy();
  }
  times.ready = performance.now();

  $("boot").hidden = true;
  $("app").hidden = false;
  document.body.dataset.ready = "1";
}

boot().catch(fail);
