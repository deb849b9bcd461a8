// Runs the Pico firmware logic under real MicroPython (the WebAssembly port) in node.
//
//   node run_micropython.mjs FIRMWARE_DIR SCENARIO_JSON_FILE
//     plays a scenario (see mpy/harness.py) and prints its RESULT (JSON) on stdout.
//   node run_micropython.mjs FIRMWARE_DIR --compile
//     compiles every firmware file (main.py too) with MicroPython; prints "ok". tcfast.py
//     (viper) needs a native emitter, which this port lacks: it is compiled with mpy-cross.
//   node run_micropython.mjs FIRMWARE_DIR --live SCAN_HZ PRESENT_JSON
//     runs the firmware on a timer; JSON commands on stdin (see mpy/live.py),
//     the firmware's serial bytes on stdout.
// A Python error goes to stderr with exit status 1.
import { readFileSync, readdirSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";
import { loadMicroPython } from "@micropython/micropython-webassembly-pyscript";

const here = dirname(fileURLToPath(import.meta.url));
const [firmwareDir, mode, ...rest] = process.argv.slice(2);
const mp = await loadMicroPython({
  heapsize: 4 * 1024 * 1024,
  stdout: (line) => process.stderr.write(line + "\n"),
});
mp.FS.mkdir("/fw");
const copy = (dir, names) => {
  for (const name of names) mp.FS.writeFile("/fw/" + name, readFileSync(join(dir, name), "utf8"));
};
copy(firmwareDir, readdirSync(firmwareDir).filter((n) => n.endsWith(".py") && n !== "main.py"));
copy(join(here, "mpy"), ["machine.py", "harness.py", "live.py"]);

function python(code) {
  try {
    return mp.runPython(code);
  } catch (error) {
    process.stderr.write(String(error.message ?? error) + "\n");
    process.exit(1);
  }
}

python("import sys\nsys.path.insert(0, '/fw')");
if (mode === "--compile") {
  const native = new Set(["tcfast.py"]);
  for (const name of readdirSync(firmwareDir).filter((n) => n.endsWith(".py") && !native.has(n))) {
    mp.globals.set("SOURCE", readFileSync(join(firmwareDir, name), "utf8"));
    python(`compile(SOURCE, ${JSON.stringify(name)}, "exec")`);
  }
  process.stdout.write("ok");
} else if (mode !== "--live") {
  mp.globals.set("SCENARIO", readFileSync(mode, "utf8"));
  python(readFileSync(join(here, "mpy", "harness.py"), "utf8"));
  process.stdout.write(mp.globals.get("RESULT"));
} else {
  const scanHz = Number(rest[0]);
  mp.globals.set("PRESENT", rest[1]);
  python("import json\nfrom live import Live\nlive = Live(json.loads(PRESENT))");
  const flush = () => {
    python("_out = live.take()");
    const hex = String(mp.globals.get("_out"));
    if (hex.length) process.stdout.write(Buffer.from(hex, "hex"));
  };
  flush();
  const period = 1000 / scanHz;
  // the firmware's clock moves one scan period per scan (a slow machine slows the board's
  // time with it, so a wobble shorter than the debounce stays shorter)
  const timer = setInterval(() => {
    python(`live.step(${Math.round(1e6 / scanHz)})`);
    flush();
  }, period);
  const lines = createInterface({ input: process.stdin });
  lines.on("line", (line) => {
    mp.globals.set("LINE", line);
    python("live.command(LINE)");
    flush();
  });
  lines.on("close", () => clearInterval(timer));
}
