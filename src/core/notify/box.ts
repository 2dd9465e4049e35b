// One message sent from the box, with what a stock image has (python3's standard library; no
// install), and the channel's key never in an argument list or a process environment: the
// request (its URL with the key, its body, the signing secret) is written to a 0600 file in the
// run's state folder over SFTP, and a fixed sender script reads it. The command line holds only
// paths and the figures the box fills in (step, cost, exit code: digits). The sender signs at
// send time (钉钉 and 飞书 refuse a timestamp an hour old), checks the channel's reply as the
// laptop does (requests.ts), skips an event the journal already holds and appends it once sent.
//
// Trade-off: a webhook key on the box is a scoped secret (it posts to one group, one inbox); an
// SMTP password opens a mailbox and AutoDL's WeChat API takes the account token, so neither goes.
import { boxMaySend, RATE_RULES, type ChannelSecret, type NotifyChannel } from './channels';
import { SLOT_NAMES, slotMark, type NotifyLang, type NotifyMessage } from './events';
import { EVENT_ID_RE } from './journal';
import { buildRequest } from './requests';

export const BOX_SENDER_NAME = 'notify-send.py';
/** Room kept in a capped text for the slot values (16 characters each at most). */
const SLOT_RESERVE_BYTES = 64;
const DIR_RE = /^(?:\/|~\/)[A-Za-z0-9._/-]{0,400}$/;

export class BoxSendRefused extends Error {
  constructor(
    readonly code: 'laptop-only' | 'bad-path' | 'bad-event',
    message: string,
  ) {
    super(message);
    this.name = 'BoxSendRefused';
  }
}

export interface BoxFile {
  path: string;
  content: string;
  /** 0o600 for the request (it holds the key), 0o600 for the script too: nobody else reads either. */
  mode: number;
}

export interface BoxSendPlan {
  files: BoxFile[];
  /** The command's words: python3, the script, the request file, then `name=` for each slot the box fills. */
  argv: string[];
  /** The same as one shell line (each word single-quoted where needed); append ` step=N cost=Y exit=C`. */
  command: string;
}

/** The request file the sender reads (JSON). */
interface BoxRequest {
  v: 1;
  kind: NotifyChannel['kind'];
  channel: string;
  event: string;
  url: string;
  body: string;
  sign: string | null;
  rate: [number, number] | null;
  journal: string;
}

const q = (s: string) => (/^[A-Za-z0-9._/=:-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/**
 * Renders one send of `msg` to `ch` for the box: the files to write (0600) and the command a
 * stock image runs. `dir` is the run's state folder on the box (absolute or ~/…), `journal` the
 * sent-message journal there (journal.ts's format). The message may hold slots (events.ts) for
 * the figures only the box knows at the end; the box passes them as `step=1200 cost=12.34 exit=1`
 * (an optional minus, digits, a dot or ?, at most 16 characters; anything else is sent as ?).
 */
export function renderBoxSend(ch: NotifyChannel, secret: ChannelSecret, msg: NotifyMessage, o: { dir: string; journal: string; eventId: string; lang: NotifyLang; webhookFields?: Record<string, unknown> }): BoxSendPlan {
  if (!boxMaySend(ch.kind)) throw new BoxSendRefused('laptop-only', `${ch.name} is an email channel: its SMTP password opens a whole mailbox and never goes to the box; it is sent from the laptop`);
  if (!DIR_RE.test(o.dir) || o.dir.includes('..') || !DIR_RE.test(o.journal) || o.journal.includes('..')) throw new BoxSendRefused('bad-path', 'the state folder and journal must be absolute (or ~/…) paths of letters, digits and . _ / -');
  if (!EVENT_ID_RE.test(o.eventId)) throw new BoxSendRefused('bad-event', 'an event id is 1-200 letters, digits and : . _ -');
  // Built unsigned here: the box signs at send time.
  const req = buildRequest({ ...ch, signed: false }, secret, msg, { lang: o.lang, nowMs: 0, hmac: () => '', webhookFields: o.webhookFields, reserveBytes: SLOT_RESERVE_BYTES });
  const rule = RATE_RULES[ch.kind];
  const request: BoxRequest = {
    v: 1,
    kind: ch.kind,
    channel: ch.name,
    event: o.eventId,
    url: req.url,
    body: req.body,
    sign: ch.signed && secret.sign ? secret.sign : null,
    rate: rule ? [rule.max, rule.windowSeconds] : null,
    journal: o.journal,
  };
  const dir = o.dir.replace(/\/+$/, '');
  const script = `${dir}/${BOX_SENDER_NAME}`;
  const requestPath = `${dir}/notify-${ch.name}-${o.eventId.replace(/[^A-Za-z0-9_-]/g, '_')}.json`;
  const argv = ['python3', '-I', script, requestPath];
  // `~/` is left to the shell; the script and request paths never hold a quote.
  const word = (s: string) => (s.startsWith('~/') ? `~/${q(s.slice(2))}` : q(s));
  return {
    files: [
      { path: script, content: BOX_SENDER_PY, mode: 0o600 },
      { path: requestPath, content: JSON.stringify(request) + '\n', mode: 0o600 },
    ],
    argv,
    command: argv.map(word).join(' '),
  };
}

/** The slots the sender fills, in the order it reads them. */
export const BOX_SLOTS = SLOT_NAMES.map((n) => ({ name: n, mark: slotMark(n) }));

/**
 * The sender: python3 standard library only. Exit 0 sent (or already sent), 1 refused by the
 * channel, 2 bad request file, 3 unreachable. Prints one line, never the URL or a secret.
 */
export const BOX_SENDER_PY = String.raw`# gpu-rent notify sender: one message, read from a 0600 request file (never argv/env).
import base64, hashlib, hmac, json, os, re, sys, time, urllib.error, urllib.parse, urllib.request

SLOTS = ("step", "cost", "exit")
VALUE = re.compile(r"^-?[0-9.?]{1,16}$")


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def journal_entries(path):
    try:
        with open(path, "rb") as f:
            f.seek(0, 2)
            size = f.tell()
            f.seek(max(0, size - 1048576))
            text = f.read().decode("utf-8", "replace")
    except OSError:
        return []
    out = []
    for line in text.split("\n"):
        try:
            e = json.loads(line)
        except ValueError:
            continue
        if isinstance(e, dict) and isinstance(e.get("id"), str) and isinstance(e.get("channel"), str) and isinstance(e.get("at"), (int, float)):
            out.append(e)
    return out


def verdict(kind, status, raw):
    try:
        o = json.loads(raw.decode("utf-8", "replace"))
    except ValueError:
        o = {}
    if not isinstance(o, dict):
        o = {}
    if kind == "webhook":
        return 200 <= status < 300, "http-%d" % status
    if kind in ("wecom", "dingtalk"):
        c = o.get("errcode")
    elif kind == "feishu":
        c = o.get("code", o.get("StatusCode"))
    else:
        c = o.get("code")
    good = 200 if kind == "pushplus" else 0
    ok = 200 <= status < 300 and c == good
    return ok, "%s-%s" % (kind, c if isinstance(c, int) else "http-%d" % status)


def main():
    if len(sys.argv) < 2:
        print("usage: notify-send.py REQUEST.json [step=N] [cost=Y] [exit=C]")
        return 2
    try:
        with open(sys.argv[1], "r", encoding="utf-8") as f:
            r = json.load(f)
        kind, channel, event, url, body = r["kind"], r["channel"], r["event"], r["url"], r["body"]
    except (OSError, ValueError, KeyError, TypeError):
        print("notify: the request file cannot be read")
        return 2
    values = {}
    for a in sys.argv[2:]:
        name, _, value = a.partition("=")
        if name in SLOTS:
            values[name] = value if VALUE.match(value) else "?"
    journal = r.get("journal")
    if journal:
        journal = os.path.expanduser(journal)
    entries = journal_entries(journal) if journal else []
    if any(e["id"] == event and e["channel"] == channel for e in entries):
        print("notify: %s already sent to %s" % (event, channel))
        return 0
    rate = r.get("rate")
    if rate:
        now = time.time()
        recent = sorted(e["at"] for e in entries if e["channel"] == channel and e["at"] > now - rate[1])
        if len(recent) >= rate[0]:
            time.sleep(min(rate[1] + 1, max(1, recent[len(recent) - rate[0]] + rate[1] - now)))
    for name in SLOTS:
        body = body.replace("\u27e6" + name + "\u27e7", values.get(name, "?"))
    sign = r.get("sign")
    if sign and kind == "dingtalk":
        ts = str(int(time.time() * 1000))
        s = base64.b64encode(hmac.new(sign.encode("utf-8"), (ts + "\n" + sign).encode("utf-8"), hashlib.sha256).digest()).decode()
        url = url + "&timestamp=" + ts + "&sign=" + urllib.parse.quote(s, safe="")
    elif sign and kind == "feishu":
        ts = str(int(time.time()))
        s = base64.b64encode(hmac.new((ts + "\n" + sign).encode("utf-8"), b"", hashlib.sha256).digest()).decode()
        b = json.loads(body)
        b = dict([("timestamp", ts), ("sign", s)] + list(b.items()))
        body = json.dumps(b, ensure_ascii=False)
    req = urllib.request.Request(url, data=body.encode("utf-8"), headers={"Content-Type": "application/json; charset=utf-8"}, method="POST")
    try:
        resp = urllib.request.build_opener(NoRedirect).open(req, timeout=20)
        status, raw = resp.status, resp.read(65537)
    except urllib.error.HTTPError as e:
        status, raw = e.code, e.read(65537)
    except Exception as e:
        print("notify: %s unreachable (%s)" % (channel, type(e).__name__))
        return 3
    ok, code = verdict(kind, status, raw)
    if not ok:
        print("notify: %s refused the message (%s)" % (channel, code))
        return 1
    if journal:
        fd = os.open(journal, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, (json.dumps({"id": event, "channel": channel, "at": int(time.time()), "by": "box"}) + "\n").encode())
        finally:
            os.close(fd)
    print("notify: sent %s to %s" % (event, channel))
    return 0


sys.exit(main())
`;
