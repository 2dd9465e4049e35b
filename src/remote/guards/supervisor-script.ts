// The on-box supervisor: the part of a launch that goes on when the laptop sleeps. A python3
// standard-library script (every GPU image has python3; nothing is installed) started detached
// beside the run's job record (~/.gpu-rent/jobs/NAME). Each poll it writes a heartbeat; follows
// the job's exit and its log (non-finite losses, the last step); every `everySeconds` it stores
// each newly complete checkpoint (the same rules as src/core/checkpoints.ts, whose regular
// expressions it is handed: the two are checked equal by test/unit/supervisor-checkpoints.test.ts)
// through the run's store, counting one only once every file of it is in and verified; it reads
// the cloud's spot notice; and at the end (exit, divergence, the budget by its own clock, a
// reclaim) it does a last store pass and then, unless the laptop is awake and claims the end,
// sends the run's message and runs the end action the box can do itself. Everything it did is
// in its journal (JSON lines), which the laptop reads when it comes back: from the box, or,
// when the box powered itself off, from the store (the journal is put there before the end
// action; SUPERVISOR_STORE_JOURNAL).
//
// What it never has: a platform token, a store key (only the run's grant, see
// core/storage/grant.ts), an SMTP password (core/notify/box.ts).

export const SUPERVISOR_VERSION = 1;

export const SUPERVISOR_FILES = {
  script: 'supervisor.py',
  config: 'config.json',
  pid: 'pid',
  heartbeat: 'heartbeat',
  journal: 'journal.log',
  state: 'state',
  stop: 'stop',
  output: 'supervisor.out',
  stored: 'stored.json',
  laptop: 'laptop',
  owner: 'owner',
  laptopDone: 'laptop-done',
  deadline: 'deadline',
  logOffset: 'log.offset',
} as const;

/** Where, under the run's store prefix, the supervisor leaves its journal, state and stored list. */
export const SUPERVISOR_STORE_JOURNAL = '.gpu-rent';

export const SUPERVISOR_PY = String.raw`# gpu-rent supervisor: finishes a run on this box while the laptop is away.
# Installed by gpu-rent's launch; stop it with: touch "$(dirname THIS)/stop"
import hashlib, json, math, os, re, shutil, signal, subprocess, sys, time, urllib.error, urllib.request

DIR = os.path.dirname(os.path.abspath(__file__))
C = {}
MAX_DETAIL = 300
MAX_FILES = 100000


def P(name):
    return os.path.join(DIR, name)


def now():
    cf = C.get("clockFile")
    if cf:
        try:
            with open(cf) as f:
                return int(f.read().strip())
        except (OSError, ValueError):
            pass
    return int(time.time())


def clean(s):
    s = str(s)
    s = "".join(ch if (ch >= " " and ch != "\x7f" and not ("\x80" <= ch <= "\x9f")) else "?" for ch in s)
    return s[:MAX_DETAIL]


def event(kind, detail=""):
    line = json.dumps({"at": now(), "kind": kind, "detail": clean(detail)}, ensure_ascii=False)
    with open(P("journal.log"), "a", encoding="utf-8") as f:
        f.write(line + "\n")


def write(name, text):
    tmp = P(name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, P(name))


def read(name, limit=4096):
    try:
        with open(P(name), "rb") as f:
            return f.read(limit).decode("utf-8", "replace").strip()
    except OSError:
        return None


def home(path):
    if path == "~":
        return os.path.expanduser("~")
    if path.startswith("~/"):
        return os.path.join(os.path.expanduser("~"), path[2:])
    if path.startswith("/"):
        return path
    return os.path.join(os.path.expanduser("~"), path)


def state(text):
    write("state", "%s %d\n" % (text, now()))


# --- the job -----------------------------------------------------------------------------------

def job_dir():
    return os.path.join(os.path.expanduser("~"), ".gpu-rent", "jobs", C["job"])


def job_file(name, limit=64):
    try:
        with open(os.path.join(job_dir(), name), "rb") as f:
            return f.read(limit).decode("ascii", "replace").strip()
    except OSError:
        return None


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def job_ended():
    code = job_file("exit")
    if code is not None and re.match(r"^-?\d{1,6}$", code):
        return int(code)
    pid = job_file("pid")
    if pid and pid.isdigit() and not alive(int(pid)):
        time.sleep(0.5)
        code = job_file("exit")
        if code is not None and re.match(r"^-?\d{1,6}$", code):
            return int(code)
        return "lost"
    return None


def stop_job(why):
    pid = job_file("pid")
    if not (pid and pid.isdigit()):
        return
    pid = int(pid)
    event("job-stop", why)
    for sig, wait in ((signal.SIGTERM, 30), (signal.SIGKILL, 5)):
        try:
            os.killpg(pid, sig)
        except OSError:
            try:
                os.kill(pid, sig)
            except OSError:
                pass
        t = time.time()
        while time.time() - t < wait:
            if job_file("exit") is not None or not alive(pid):
                return
            time.sleep(0.5)


# --- the log: non-finite losses and the last step --------------------------------------------

# One reading per line, as the laptop's reader counts: the first training loss (train_loss,
# loss:, avr_loss=, lm loss:), never an evaluation one (eval_loss, val/loss, test loss).
LOSS = re.compile(r"(?:^|[^A-Za-z0-9_])((?:[A-Za-z]{1,12}[_/ ])?)loss['\"]?\s*[:=]\s*['\"]?([-+]?(?:nan|inf(?:inity)?|\d+(?:\.\d*)?(?:[eE][-+]?\d+)?))", re.I)
EVAL_PREFIX = ("eval", "val", "valid", "validation", "test", "dev")
STEP = re.compile(r"(?:global_step|step|iter(?:ation)?)['\"]?\s*[:=]?\s*(\d{1,12})\b|(\d{1,12})/(\d{1,12})\s*\[", re.I)
LOG = {"streak": 0, "since": None, "step": None, "readings": 0}


def read_log():
    path = os.path.join(job_dir(), "output.log")
    try:
        off = int(read("log.offset") or "0")
    except ValueError:
        off = 0
    try:
        size = os.path.getsize(path)
    except OSError:
        return
    if size < off:
        off = 0
    if size == off:
        return
    start = max(off, size - 1048576)
    with open(path, "rb") as f:
        f.seek(start)
        data = f.read(size - start)
    cut = data.rfind(b"\n")
    if cut < 0:
        if len(data) < 1048576:
            return
        cut = len(data) - 1
    text = data[: cut + 1].decode("utf-8", "replace").replace("\r", "\n")
    write("log.offset", str(start + cut + 1))
    for line in text.split("\n"):
        read_line(line)


def read_line(line):
    m = None
    for m in STEP.finditer(line):
        pass
    if m:
        LOG["step"] = int(m.group(1) or m.group(2))
    for lm in LOSS.finditer(line):
        if lm.group(1).lower().rstrip("_/ ") in EVAL_PREFIX:
            continue
        v = lm.group(2).lower()
        LOG["readings"] += 1
        try:
            finite = math.isfinite(float(v))
        except ValueError:
            finite = False
        if finite:
            LOG["streak"] = 0
            LOG["since"] = None
        else:
            if LOG["streak"] == 0:
                LOG["since"] = LOG["step"]
            LOG["streak"] += 1
        break

# --- checkpoints: the rules of src/core/checkpoints.ts --------------------------------------

R = {}


def rules():
    r = C["checkpoints"]["rules"]
    f = re.I | re.A
    R["weight"] = re.compile(r["weightExt"], f)
    R["folder"] = re.compile(r["defaultFolder"], f)
    R["shard"] = re.compile(r["shard"], f)
    R["writer"] = re.compile(r["writerMark"], f)
    R["log"] = re.compile(r["logName"], f)
    R["globs"] = [glob_re(g) for g in (C["checkpoints"].get("patterns") or [])[:16]]


def segment_matches(glob, name):
    # The greedy star walk of core/checkpoints.ts's segmentMatches: time bounded by the lengths.
    g = n = 0
    star = mark = -1
    while n < len(name):
        if g < len(glob) and (glob[g] == "?" or glob[g] == name[n]):
            g += 1
            n += 1
        elif g < len(glob) and glob[g] == "*":
            star = g
            g += 1
            mark = n
        elif star != -1:
            g = star + 1
            mark += 1
            n = mark
        else:
            return False
    while g < len(glob) and glob[g] == "*":
        g += 1
    return g == len(glob)


def glob_re(glob):
    # core/checkpoints.ts's globMatcher: "**" for any number of folders, memoised (no regex to backtrack).
    if "/" not in glob:
        return lambda path: segment_matches(glob, path[path.rfind("/") + 1:])
    gs = [x for x in glob.split("/") if x != ""]

    def test(path):
        ps = path.split("/")
        seen = {}

        def at(i, j):
            key = (i, j)
            if key in seen:
                return seen[key]
            if i == len(gs):
                r = j == len(ps)
            elif gs[i] == "**":
                r = at(i + 1, j) or (j < len(ps) and at(i, j + 1))
            else:
                r = j < len(ps) and segment_matches(gs[i], ps[j]) and at(i + 1, j + 1)
            seen[key] = r
            return r

        return at(0, 0)

    return test


def default_file(base):
    if not R["weight"].search(base) or R["shard"].search(base):
        return False
    if re.search(r"\.ckpt$", base, re.I):
        return True
    if re.match(r"^(?:last|best)\.(?:pt|pth)$", base, re.I):
        return True
    stem = R["weight"].sub("", base, count=1)
    return bool(re.search(r"(?:step|iter|iteration|epoch|ckpt|checkpoint)[-_=]?\d+", stem, re.I | re.A) or re.search(r"[-_]\d+$", stem, re.A))


def matches(path, is_folder):
    base = path[path.rfind("/") + 1:]
    if R["log"].search(base) or R["writer"].search(base) or base.startswith(".gpu-rent"):
        return False
    if R["globs"]:
        return any(g(path) for g in R["globs"])
    return bool(R["folder"].search(base)) if is_folder else default_file(base)


def step_of(name):
    base = name[name.rfind("/") + 1:]
    for rx in (r"(?:global_?step|step|iter(?:ation)?)[-_=]?0*(\d{1,15})", r"checkpoint[-_=]?0*(\d{1,15})", r"epoch[-_=]?0*(\d{1,15})", r"(\d{1,15})(?!.*\d)"):
        m = re.search(rx, base, re.I | re.A)
        if m:
            return int(m.group(1))
    return None


def find_checkpoints(files, now_s, settle):
    # files: [(rel, mtime, size)]; returns {name: {"kind", "files", "mtime", "step", "incomplete"}}
    depth = C["checkpoints"].get("maxDepth", 6)
    found = {}
    order = []
    for rel, mtime, size in files:
        parts = rel.split("/")
        if len(parts) > depth + 1 or any(p in ("", ".", "..") for p in parts):
            continue
        if any(p.startswith(".gpu-rent") for p in parts):
            continue
        owner = None
        for i in range(1, len(parts)):
            d = "/".join(parts[:i])
            e = found.get(d)
            if (e and e["kind"] == "folder") or matches(d, True):
                owner = d
                break
        if owner is not None:
            e = found.get(owner)
            if e is None:
                e = {"kind": "folder", "files": []}
                found[owner] = e
                order.append(owner)
            e["files"].append((rel, mtime, size))
        elif not any(R["writer"].search(p) for p in parts[:-1]) and matches(rel, False):
            if rel not in found:
                order.append(rel)
            found[rel] = {"kind": "file", "files": [(rel, mtime, size)]}
    out = {}
    for name in order:
        e = found[name]
        mt = max(f[1] for f in e["files"])
        inner = [f[0][len(name) + 1:] if e["kind"] == "folder" else f[0][f[0].rfind("/") + 1:] for f in e["files"]]
        inc = None
        if not e["files"]:
            inc = "empty"
        elif any(any(R["writer"].search(p) for p in r.split("/")) for r in inner):
            inc = "partial-file"
        elif now_s is not None and now_s - mt < settle:
            inc = "still-being-written"
        elif e["kind"] == "folder" and re.match(r"^checkpoint-\d+$", name[name.rfind("/") + 1:], re.I | re.A) and "trainer_state.json" not in inner:
            inc = "no-trainer-state"
        out[name] = {"kind": e["kind"], "files": e["files"], "mtime": mt, "step": step_of(name), "incomplete": inc}
    return out


def list_files(root):
    out = []
    depth = C["checkpoints"].get("maxDepth", 6) + 1
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        rel_dir = os.path.relpath(dirpath, root)
        level = 0 if rel_dir == "." else rel_dir.count(os.sep) + 1
        if level >= depth:
            dirnames[:] = []
        dirnames[:] = [d for d in dirnames if not d.startswith(".gpu-rent")]
        for n in filenames:
            p = os.path.join(dirpath, n)
            try:
                st = os.lstat(p)
            except OSError:
                continue
            if not os.path.isfile(p) or os.path.islink(p):
                continue
            rel = n if rel_dir == "." else rel_dir.replace(os.sep, "/") + "/" + n
            out.append((rel, int(st.st_mtime), st.st_size))
            if len(out) >= MAX_FILES:
                return out
    return out


# --- the store ---------------------------------------------------------------------------------

STORE = {"broken": None}


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while True:
            b = f.read(1 << 20)
            if not b:
                break
            h.update(b)
    return h.hexdigest()


def put_file(path, rel):
    s = C.get("store") or {}
    if s.get("kind") == "post":
        r = subprocess.run(["sh", home(s["uploader"]), home(s["grant"]), path, rel], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=s.get("timeoutSeconds", 3600))
        if r.returncode == 0:
            return 0, ""
        return r.returncode, r.stderr.decode("utf-8", "replace").strip().split("\n")[-1][:200]
    if s.get("kind") == "folder":
        dest = os.path.join(home(s["dir"]), rel)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        part = dest + ".gpu-rent-part"
        want = sha256(path)
        try:
            shutil.copyfile(path, part)
            if sha256(part) != want:
                os.unlink(part)
                return 6, "the copy's SHA-256 differs"
            os.replace(part, dest)
        except OSError as e:
            try:
                os.unlink(part)
            except OSError:
                pass
            return (5 if e.errno == 28 else 8), "%s" % e.strerror
        return 0, ""
    return 2, "no store"


def stored():
    try:
        with open(P("stored.json"), encoding="utf-8") as f:
            v = json.load(f)
        return v if isinstance(v, dict) else {}
    except (OSError, ValueError):
        return {}


def store_pass(final, writer_done=False):
    ck = C.get("checkpoints") or {}
    if not ck.get("dir") or not C.get("store") or STORE["broken"]:
        return
    root = home(ck["dir"])
    if not os.path.isdir(root):
        return
    done = stored()
    # Once the run has exited nothing writes any more: every checkpoint left is as done as it gets.
    found = find_checkpoints(list_files(root), now(), 0 if writer_done else ck.get("settleSeconds", 5))
    for name in sorted(found, key=lambda n: (found[n]["step"] if found[n]["step"] is not None else -1, found[n]["mtime"])):
        c = found[name]
        if c["incomplete"]:
            continue
        sig = [[f[0], f[2], f[1]] for f in sorted(c["files"])]
        if done.get(name, {}).get("files") == sig:
            continue
        nbytes = 0
        for rel, mtime, size in sorted(c["files"]):
            heartbeat()
            code, why = put_file(os.path.join(root, rel), rel)
            if code != 0:
                event("store-failed", "%s %d %s" % (name, code, why))
                if code in (3, 4, 5):
                    STORE["broken"] = code
                    event("store-stopped", "code %d: no further uploads this run" % code)
                return
            nbytes += size
        done[name] = {"files": sig, "at": now(), "step": c["step"]}
        write("stored.json", json.dumps(done))
        event("stored", "%s files=%d bytes=%d" % (name, len(sig), nbytes))


# The journal, the state and the stored list in the store too (under JOURNAL_DIR/ of the run's
# prefix), before an end action that may power the box off: the laptop reads what the box did
# from there without starting the box (and its GPU) again.
JOURNAL_DIR = ".gpu-rent"


def publish_journal():
    if not C.get("store") or STORE["broken"]:
        return
    for name in ("stored.json", "state", "journal.log"):
        if not os.path.isfile(P(name)) or os.path.getsize(P(name)) == 0:
            continue
        code, why = put_file(P(name), JOURNAL_DIR + "/" + name)
        if code != 0:
            event("journal-store-failed", "%s %d %s" % (name, code, why))
            return


# --- spot notices ------------------------------------------------------------------------------

def http(method, url, headers, timeout=2):
    req = urllib.request.Request(url, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read(256).decode("utf-8", "replace").strip()
    except urllib.error.HTTPError as e:
        return e.code, ""
    except Exception:
        return None, ""


def spot_notice():
    s = C.get("spot")
    if not s:
        return None
    base = s["base"].rstrip("/")
    if s["cloud"] == "aliyun":
        headers = {}
        code, token = http("PUT", base + "/latest/api/token", {"X-aliyun-ecs-metadata-token-ttl-seconds": "300"})
        if code == 200 and token and re.match(r"^[A-Za-z0-9._=+/-]{1,200}$", token):
            headers["X-aliyun-ecs-metadata-token"] = token
        code, text = http("GET", base + "/latest/meta-data/instance/spot/termination-time", headers)
    else:
        code, text = http("GET", base + "/latest/meta-data/spot/termination-time", {})
    if code == 200 and re.search(r"\d", text or ""):
        return text[:64]
    return None


# --- the end -----------------------------------------------------------------------------------

def cost_text():
    b = C.get("bill")
    if not b:
        return "?"
    started = int(read("armed") or now())
    fen = b.get("spentFen", 0) + b["fenPerHour"] * max(0, now() - started) / 3600.0
    return "%.2f" % (fen / 100.0)


def notify(kind, exit_code):
    for argv in (C.get("notify") or {}).get(kind, []):
        args = [home(a) if a.startswith("~/") else a for a in argv] + ["step=%s" % (LOG["step"] if LOG["step"] is not None else "?"), "cost=%s" % cost_text(), "exit=%s" % exit_code]
        try:
            r = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=180)
            event("notify-sent" if r.returncode == 0 else "notify-failed", "%s %s %s" % (kind, r.returncode, r.stdout.decode("utf-8", "replace").strip()[:150]))
        except Exception as e:
            event("notify-failed", "%s %s" % (kind, type(e).__name__))


def laptop_away():
    seen = read("laptop")
    if not seen or not seen.isdigit():
        return True
    return now() - int(seen) > C.get("laptopAwaySeconds", 120)


def heartbeat():
    write("heartbeat", str(now()))


def owner():
    return read("owner", 16)


def take_end():
    # One owner of the end, decided atomically: whoever creates the file first (the laptop with
    # sh's noclobber, the box with O_EXCL) ends the run; the other stands down.
    try:
        fd = os.open(P("owner"), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return owner() == "box"
    try:
        os.write(fd, b"box\n")
    finally:
        os.close(fd)
    return True


def wait_for_laptop():
    # The laptop is awake: it ends the run itself (its verified sync, its end action, its
    # message). Wait while its mark is fresh, up to the grace time, for it to take the end.
    until = now() + C.get("graceSeconds", 600)
    while now() < until and owner() is None and not laptop_away():
        heartbeat()
        time.sleep(1)


def laptop_finishes():
    # The laptop owns the end: stay until it says it is done. If it goes away before that (it
    # slept or was killed during its end), take the end back: the run must not bill on unseen.
    while True:
        heartbeat()
        if os.path.exists(P("laptop-done")) or os.path.exists(P("stop")):
            return True
        if laptop_away():
            return False
        time.sleep(1)


def finish(outcome, exit_code):
    state("ending " + outcome)
    event("run-ended", "%s exit=%s step=%s" % (outcome, exit_code, LOG["step"] if LOG["step"] is not None else "?"))
    store_pass(True, writer_done=True)
    if not laptop_away():
        wait_for_laptop()
    if not take_end():
        event("claimed", "the laptop ends the run")
        state("claimed")
        if laptop_finishes():
            event("laptop-done", "")
            return
        event("laptop-gone", "the laptop went away before it ended the run: the box ends it")
        write("owner", "box\n")
    state("acting " + outcome)
    notify(outcome, exit_code)
    publish_journal()
    end = C.get("end") or {}
    if end.get("command"):
        event("action-start", end.get("action", ""))
        try:
            r = subprocess.run(["sh", "-c", end["command"]], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
            rc = r.returncode
            out = r.stdout.decode("utf-8", "replace").strip().split("\n")[-1][:200]
        except subprocess.TimeoutExpired:
            rc, out = 124, "timed out"
        event("action-exit", "%d %s" % (rc, out))
        if rc != 0:
            notify("endActionFailed", exit_code)
            state("done %s action-failed" % outcome)
            return
    state("done " + outcome)


def main():
    global C
    with open(P("config.json"), encoding="utf-8") as f:
        C = json.load(f)
    if C.get("v") != 1:
        print("gpu-rent supervisor: config version %r not understood" % C.get("v"))
        return 2
    if C.get("checkpoints"):
        rules()
    with open(P("pid"), "w") as f:
        f.write(str(os.getpid()))
    if read("armed") is None:
        write("armed", str(now()))
    if C.get("budgetSeconds") is not None and read("deadline") is None:
        write("deadline", str(now() + int(C["budgetSeconds"])))
    event("armed", "job=%s poll=%s every=%s" % (C["job"], C.get("pollSeconds"), (C.get("checkpoints") or {}).get("everySeconds")))
    state("running")
    last_store = 0
    spot_seen = read("spot") is not None
    while True:
        heartbeat()
        if os.path.exists(P("stop")):
            event("stopped", "")
            state("stopped")
            break
        read_log()
        code = job_ended()
        if code is not None:
            finish("finished" if code == 0 else "failed", code)
            break
        div = C.get("divergeAfter")
        if div and LOG["streak"] >= div:
            event("diverged", "loss not finite for %d readings since step %s" % (LOG["streak"], LOG["since"] if LOG["since"] is not None else "?"))
            stop_job("diverged")
            finish("diverged", job_file("exit") or "?")
            break
        dl = read("deadline")
        if dl and dl.isdigit() and now() >= int(dl):
            event("budget-stop", "the budget is spent by this box's clock")
            stop_job("budget")
            finish("budgetStop", job_file("exit") or "?")
            break
        if not spot_seen:
            t = spot_notice()
            if t:
                spot_seen = True
                write("spot", t)
                event("spot-notice", t)
                store_pass(True)
                notify("spotReclaimed", "?")
        every = (C.get("checkpoints") or {}).get("everySeconds", 600)
        if now() - last_store >= every:
            last_store = now()
            store_pass(False)
        time.sleep(C.get("pollSeconds", 10))
    try:
        os.unlink(P("pid"))
    except OSError:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
`;
