// What the box gets instead of a key: a grant. Pure: the lifetime rule, the check of a POST
// policy's conditions (what the store will enforce), and the box-side scripts that use a grant
// with what a stock image has (sh, curl, sha256sum, md5sum, stat).
//
// Uploads (checkpoints, whose names nobody knows in advance) use one POST policy per run: the
// store itself enforces a key prefix (`starts-with $key`), a size range (`content-length-range`)
// and an expiry, and plain `curl -F` can use it. A presigned PUT URL names one key, so it can
// only cover files known when the laptop signs. Downloads (a task's `data:`) are known at the
// start: one presigned GET URL per object.
//
// Time: the expiry and the signing date are the laptop's; the store checks the expiry against
// its own clock. The box never reads its clock for a grant, so a box clock off by any amount
// changes nothing; a laptop clock off from the store's is covered by CLOCK_ALLOWANCE_S.

/** One POST uploads at most 5 GiB on S3, OSS (PostObject) and COS (POST Object). */
export const MAX_POST_BYTES = 5 * 1024 ** 3;
/** SigV4 presigned URLs live at most 7 days; grants are held to the same. */
export const MAX_GRANT_S = 7 * 24 * 3600;
/** A laptop clock this far off from the store's still leaves the whole run covered. */
export const CLOCK_ALLOWANCE_S = 15 * 60;
/** At least this much after the run's bound: the final upload after the end, retries, a slow link. */
export const MIN_MARGIN_S = 3600;

export interface GrantLifetime {
  /** Seconds from the laptop's now to the expiry. */
  lifetimeS: number;
  /** The run's bound plus the margin was over 7 days: the grant ends before the run's bound. */
  capped: boolean;
}

/**
 * The rule: lifetime = the run's bound (its max hours, else its budget in hours at its price) +
 * a margin of max(1 h, a quarter of the bound) + 15 min for a laptop clock off from the store's,
 * at most 7 days. The box's clock plays no part.
 */
export function grantLifetime(runBoundS: number): GrantLifetime {
  const bound = Math.max(0, Math.ceil(Number.isFinite(runBoundS) ? runBoundS : MAX_GRANT_S));
  const want = bound + Math.max(MIN_MARGIN_S, Math.ceil(bound / 4)) + CLOCK_ALLOWANCE_S;
  return want > MAX_GRANT_S ? { lifetimeS: MAX_GRANT_S, capped: true } : { lifetimeS: want, capped: false };
}

// ---------------------------------------------------------------------------------------------
// The POST policy, read back

export interface PolicyExpectation {
  bucket: string;
  /** The run's prefix, ending in `/` (never empty: a grant for the whole bucket is refused). */
  prefix: string;
  maxBytes: number;
  /** Epoch seconds: the expiry must fall in [earliest, latest]. */
  expiresEarliest: number;
  expiresLatest: number;
}

export interface PolicyReading {
  expiration: number;
  bucket?: string;
  keyPrefix?: string;
  sizeRange?: [number, number];
  fields: string[];
}

function fromBase64(b64: string): string {
  const bin = atob(b64);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return new TextDecoder().decode(bytes);
}

/** Decodes a POST policy (base64 JSON) into what it allows; throws on a malformed one. */
export function readPostPolicy(policyB64: string): PolicyReading {
  const doc = JSON.parse(fromBase64(policyB64)) as { expiration?: unknown; conditions?: unknown };
  if (typeof doc.expiration !== 'string' || !Array.isArray(doc.conditions)) throw new Error('a POST policy has an expiration and conditions');
  const expiration = Date.parse(doc.expiration) / 1000;
  if (!Number.isFinite(expiration)) throw new Error(`bad expiration ${doc.expiration}`);
  const out: PolicyReading = { expiration, fields: [] };
  for (const c of doc.conditions as unknown[]) {
    if (Array.isArray(c)) {
      const [op, a, b] = c as unknown[];
      if (op === 'content-length-range' && typeof a === 'number' && typeof b === 'number') out.sizeRange = [a, b];
      else if ((op === 'starts-with' || op === 'eq') && typeof a === 'string' && typeof b === 'string') {
        const field = a.replace(/^\$/, '').toLowerCase();
        out.fields.push(`${op}:${field}:${b}`);
        if (field === 'key' && op === 'starts-with') out.keyPrefix = b;
        if (field === 'bucket' && op === 'eq') out.bucket = b;
      } else throw new Error(`unknown condition ${JSON.stringify(c)}`);
    } else if (c && typeof c === 'object') {
      for (const [k, v] of Object.entries(c as Record<string, unknown>)) {
        out.fields.push(`eq:${k.toLowerCase()}:${String(v)}`);
        if (k.toLowerCase() === 'bucket' && typeof v === 'string') out.bucket = v;
        if (k.toLowerCase() === 'key' && typeof v === 'string') out.keyPrefix = undefined;
      }
    } else throw new Error(`unknown condition ${JSON.stringify(c)}`);
  }
  return out;
}

/** Fields a grant may leave open (any value): only the SHA-256 the box states for its own file. */
const OPEN_FIELDS = new Set(['x-amz-meta-sha256']);

/** What is wrong with a POST policy for this run: [] when it allows exactly the prefix, the sizes and the time. */
export function policyProblems(policyB64: string, want: PolicyExpectation): string[] {
  let r: PolicyReading;
  try {
    r = readPostPolicy(policyB64);
  } catch (e) {
    return [`unreadable policy: ${(e as Error).message}`];
  }
  const p: string[] = [];
  if (r.bucket !== want.bucket) p.push(`bucket is ${r.bucket ?? 'unbounded'}, not ${want.bucket}`);
  if (!want.prefix || !want.prefix.endsWith('/')) p.push('the run prefix must be a folder (end in /)');
  if (r.keyPrefix !== want.prefix) p.push(`key prefix is ${r.keyPrefix === undefined ? 'unbounded' : JSON.stringify(r.keyPrefix)}, not ${JSON.stringify(want.prefix)}`);
  if (!r.sizeRange) p.push('no content-length-range: any size allowed');
  else if (r.sizeRange[1] > want.maxBytes || r.sizeRange[1] > MAX_POST_BYTES || r.sizeRange[0] < 0) p.push(`size range ${r.sizeRange.join('-')} exceeds ${Math.min(want.maxBytes, MAX_POST_BYTES)}`);
  if (r.expiration < want.expiresEarliest || r.expiration > want.expiresLatest) p.push(`expires at ${r.expiration}, outside [${want.expiresEarliest}, ${want.expiresLatest}]`);
  for (const f of r.fields) {
    const [op, field, value] = f.split(/:(.*?):(.*)/s).filter((x, i) => i < 3 || x !== '') as [string, string, string];
    if (op === 'starts-with' && field !== 'key' && !OPEN_FIELDS.has(field)) p.push(`field ${field} is left open (starts-with ${JSON.stringify(value)})`);
  }
  return p;
}

// ---------------------------------------------------------------------------------------------
// The grant file and the box-side scripts

export interface PostGrant {
  /** Where the form is posted (the bucket's URL). */
  url: string;
  /** The signed form fields (policy, signature, credential scope, date, algorithm, bucket). */
  fields: Record<string, string>;
  /** The run's prefix the policy binds (ends in /). */
  prefix: string;
  maxBytes: number;
  /** Epoch seconds, the laptop's clock. */
  expires: number;
}

const SAFE_VALUE = /^[A-Za-z0-9+/=_.:-]{1,8192}$/;
const SAFE_FIELD = /^[A-Za-z][A-Za-z0-9-]{0,63}$/;
const SAFE_URL = /^https?:\/\/[A-Za-z0-9.:[\]-]+(\/[A-Za-z0-9._~%/-]*)?(\?[A-Za-z0-9._~%/&=-]*)?$/;

/** Single-quoted for sh. */
export function shQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * The grant as a curl config file (`curl -K FILE`): the URL and the signed fields, read by curl
 * from a 0600 file so nothing of it is in an argument list or an environment. The `key` the SDK
 * adds is left out (the uploader names each file under the prefix).
 */
export function renderPostGrantConfig(g: PostGrant): string {
  if (!SAFE_URL.test(g.url)) throw new Error('the grant URL has unexpected characters');
  const lines = ['# gpu-rent upload grant: private (0600), expires ' + new Date(g.expires * 1000).toISOString(), `url = "${g.url}"`];
  for (const [k, v] of Object.entries(g.fields)) {
    if (k.toLowerCase() === 'key') continue;
    if (!SAFE_FIELD.test(k) || !SAFE_VALUE.test(v)) throw new Error(`the grant field ${k.slice(0, 40)} has unexpected characters`);
    lines.push(`form-string = "${k}=${v}"`);
  }
  return lines.join('\n') + '\n';
}

/** Exit codes of the box-side scripts (the supervisor reads them). */
export const BOX_EXIT = { ok: 0, usage: 2, tooBig: 3, denied: 4, quota: 5, notVerified: 6, changed: 7, network: 8 } as const;

/**
 * The box-side uploader, a POSIX sh script for a stock image (curl, sha256sum, md5sum, stat,
 * mktemp): `sh UPLOADER GRANT_FILE FILE NAME` posts FILE as PREFIX/NAME with its SHA-256 as
 * `x-amz-meta-sha256`, then checks the store's ETag against the file's MD5 and that the file did
 * not change while it was sent. The grant is read by curl from the 0600 file (-K). One line on
 * stdout on success: `ok NAME SIZE SHA256`; on failure one line on stderr and an exit code of
 * BOX_EXIT. A connection cut mid-upload is retried (attempts, with a pause), the whole form again.
 */
export function renderBoxUploader(opts: { prefix: string; maxBytes: number; attempts?: number; retryPauseS?: number }): string {
  if (!/^[^'\x00-\x1f\x7f]*\/$/.test(opts.prefix)) throw new Error('the prefix must end in / and have no quote or control characters');
  const max = Math.min(Math.floor(opts.maxBytes), MAX_POST_BYTES);
  const attempts = Math.max(1, Math.min(20, Math.floor(opts.attempts ?? 5)));
  const pause = Math.max(0, Math.min(300, Math.floor(opts.retryPauseS ?? 5)));
  return `#!/bin/sh
# gpu-rent: upload one file to the run's store with the run's grant (no key on this box).
# usage: sh THIS GRANT_FILE FILE NAME   (NAME: the file's name under ${opts.prefix})
set -u
umask 077
prefix=${shQuote(opts.prefix)}
max=${max}
fail() { printf 'gpu-rent-upload: %s\\n' "$2" >&2; exit "$1"; }
# SHA-256 of a file: openssl where the image has it (its SHA extensions: ~3x sha256sum), else sha256sum.
sha256of() {
  h=$(openssl dgst -sha256 < "$1" 2>/dev/null | sed 's/^.*= *//')
  case "$h" in *[!0-9a-f]*|'') h=$(sha256sum < "$1" | cut -d' ' -f1) ;; esac
  [ \${#h} -eq 64 ] || h=$(sha256sum < "$1" | cut -d' ' -f1)
  printf '%s' "$h"
}
[ $# -eq 3 ] || fail ${BOX_EXIT.usage} 'usage: GRANT_FILE FILE NAME'
grant=$1; src=$2; name=$3
[ -f "$grant" ] || fail ${BOX_EXIT.usage} 'no grant file'
case "$(stat -c %a -- "$grant")" in 600|400) ;; *) fail ${BOX_EXIT.usage} 'the grant file is readable by others (chmod 600 it)' ;; esac
case "$name" in ''|/*|*/|*//*|..|../*|*/..|*/../*|.|./*|*/.|*/./*) fail ${BOX_EXIT.usage} 'bad NAME: relative, no . or .. parts' ;; esac
if printf '%s' "$name" | LC_ALL=C grep -q '[[:cntrl:]\\\\]'; then fail ${BOX_EXIT.usage} 'bad NAME: control characters or backslash'; fi
[ -f "$src" ] || fail ${BOX_EXIT.usage} 'FILE is not a regular file'
size=$(stat -L -c %s -- "$src") || fail ${BOX_EXIT.usage} 'cannot read FILE'
[ "$size" -le "$max" ] || fail ${BOX_EXIT.tooBig} "FILE is $size bytes, over the grant's $max (one POST takes at most 5 GiB): save smaller shards, or push it from the laptop with gpu-rent storage push"
[ "$size" -ge 1 ] || fail ${BOX_EXIT.usage} 'FILE is empty'
tmp=$(mktemp -d) || fail ${BOX_EXIT.usage} 'mktemp failed'
trap 'rm -rf "$tmp"' EXIT
stamp=$(stat -L -c '%s %y' -- "$src")
# The MD5 (to check the store's ETag afterwards) is computed while the SHA-256 and the upload go;
# the SHA-256 goes in the form before the file, so it is needed first.
md5sum < "$src" > "$tmp/md5" &
sha=$(sha256of "$src")
ln -s "$(readlink -f -- "$src")" "$tmp/f"
n=0
while :; do
  n=$((n + 1))
  code=$(curl -sS --connect-timeout 20 -K "$grant" --form-string "key=$prefix$name" --form-string "x-amz-meta-sha256=$sha" -F "file=@$tmp/f" -D "$tmp/h" -o "$tmp/b" -w '%{http_code}' 2>"$tmp/e")
  rc=$?
  if [ $rc -eq 0 ] && [ "$code" -ge 200 ] && [ "$code" -lt 300 ]; then break; fi
  err=$(sed -n 's:.*<Code>\\([A-Za-z]\\{1,64\\}\\)</Code>.*:\\1:p' "$tmp/b" 2>/dev/null | head -n 1)
  case "$code:$err" in
    *:QuotaExceeded|*:EntityTooLarge|*:InsufficientStorage|*:XMinioAdminBucketQuotaExceeded|*:XMinioStorageFull) fail ${BOX_EXIT.quota} "the store refused: $err (bucket quota or size limit)";;
    403:*) fail ${BOX_EXIT.denied} "the store refused: 403 \${err:-Forbidden} (grant expired, or outside the run's prefix or sizes)";;
    4[0-9][0-9]:*) [ "$code" = 408 ] || [ "$code" = 429 ] || fail ${BOX_EXIT.denied} "the store refused: $code $err";;
  esac
  [ $n -lt ${attempts} ] || fail ${BOX_EXIT.network} "upload failed after $n attempts: curl $rc, HTTP $code $(head -c 200 "$tmp/e" | tr -cd '[:print:]')"
  sleep ${pause}
done
wait
md5=$(cut -d' ' -f1 "$tmp/md5")
etag=$(sed -n 's/^[Ee][Tt][Aa][Gg]:[[:space:]]*"\\{0,1\\}\\([0-9A-Fa-f]\\{32\\}\\)"\\{0,1\\}[[:space:]]*$/\\1/p' "$tmp/h" | tail -n 1 | tr 'A-F' 'a-f')
[ -n "$etag" ] || fail ${BOX_EXIT.notVerified} 'the store sent no MD5 ETag: the upload is not verified'
[ "$etag" = "$md5" ] || fail ${BOX_EXIT.notVerified} "the store's ETag $etag is not the file's MD5 $md5: the bytes differ"
[ "$(stat -L -c '%s %y' -- "$src")" = "$stamp" ] || fail ${BOX_EXIT.changed} 'FILE changed while it was uploaded (its size or time differs)'
printf 'ok %s %s %s\\n' "$name" "$size" "$sha"
`;
}

export interface PullItem {
  /** The file's path under the destination (checked: relative, no .. parts). */
  rel: string;
  sha256: string;
  size: number;
  /** A presigned GET URL. */
  url: string;
}

/** The pull grant: one line per object, `SHA256 SIZE REL` then the URL as a curl config line; 0600 on the box. */
export function renderPullGrant(items: readonly PullItem[]): string {
  const out: string[] = [];
  for (const it of items) {
    if (!/^[0-9a-f]{64}$/.test(it.sha256) || !Number.isSafeInteger(it.size) || it.size < 0) throw new Error(`bad hash or size for ${it.rel.slice(0, 80)}`);
    if (!/^[^\x00-\x1f\x7f\\]+$/.test(it.rel) || it.rel.split('/').some((s) => s === '' || s === '.' || s === '..') || it.rel.startsWith('/')) throw new Error(`bad name ${JSON.stringify(it.rel.slice(0, 80))}`);
    if (!SAFE_URL.test(it.url)) throw new Error('a presigned URL has unexpected characters');
    out.push(`${it.sha256} ${it.size} ${it.rel}`, `url = "${it.url}"`);
  }
  return out.join('\n') + '\n';
}

/**
 * The box-side puller: `sh THIS GRANT_FILE DEST` fetches each object of the pull grant into
 * DEST/REL (a .part file, renamed once its SHA-256 and size match), skips files already there
 * with the same hash, and resumes a .part with a Range request. The URLs go to curl on stdin
 * (`-K -`), never in an argument list. Prints `ok REL` / `skip REL` per file.
 */
export function renderBoxPuller(opts: { attempts?: number; retryPauseS?: number } = {}): string {
  const attempts = Math.max(1, Math.min(20, Math.floor(opts.attempts ?? 5)));
  const pause = Math.max(0, Math.min(300, Math.floor(opts.retryPauseS ?? 5)));
  return `#!/bin/sh
# gpu-rent: fetch a task's data from its store with presigned URLs (no key on this box).
# usage: sh THIS GRANT_FILE DEST
set -u
umask 022
fail() { printf 'gpu-rent-pull: %s\\n' "$2" >&2; exit "$1"; }
# SHA-256 of a file: openssl where the image has it (its SHA extensions: ~3x sha256sum), else sha256sum.
sha256of() {
  h=$(openssl dgst -sha256 < "$1" 2>/dev/null | sed 's/^.*= *//')
  case "$h" in *[!0-9a-f]*|'') h=$(sha256sum < "$1" | cut -d' ' -f1) ;; esac
  [ \${#h} -eq 64 ] || h=$(sha256sum < "$1" | cut -d' ' -f1)
  printf '%s' "$h"
}
[ $# -eq 2 ] || fail ${BOX_EXIT.usage} 'usage: GRANT_FILE DEST'
grant=$1; dest=$2
case "$(stat -c %a -- "$grant")" in 600|400) ;; *) fail ${BOX_EXIT.usage} 'the grant file is readable by others (chmod 600 it)' ;; esac
mkdir -p -- "$dest" || fail ${BOX_EXIT.usage} 'cannot make DEST'
while IFS= read -r head && IFS= read -r urlline; do
  sha=\${head%% *}; rest=\${head#* }; size=\${rest%% *}; rel=\${rest#* }
  out="$dest/$rel"
  if [ -f "$out" ] && [ "$(stat -c %s -- "$out")" = "$size" ] && [ "$(sha256of "$out")" = "$sha" ]; then printf 'skip %s\\n' "$rel"; continue; fi
  mkdir -p -- "$(dirname -- "$out")" || fail ${BOX_EXIT.usage} "cannot make the folder of $rel"
  n=0
  while :; do
    n=$((n + 1))
    [ -f "$out.part" ] || : > "$out.part"
    have=$(stat -c %s -- "$out.part")
    [ "$have" -le "$size" ] || { rm -f -- "$out.part"; have=0; }
    code=206
    if [ "$have" -lt "$size" ]; then
      code=$(printf '%s\\n' "$urlline" | curl -sS -f --connect-timeout 20 -K - -C - -o "$out.part" -w '%{http_code}' 2>/dev/null)
      [ $? -eq 33 ] && rm -f -- "$out.part"
    fi
    got=$(stat -c %s -- "$out.part" 2>/dev/null || echo 0)
    if [ "$got" = "$size" ]; then
      if [ "$(sha256of "$out.part")" = "$sha" ]; then mv -f -- "$out.part" "$out"; printf 'ok %s\\n' "$rel"; break; fi
      rm -f -- "$out.part"
      [ $n -lt ${attempts} ] || fail ${BOX_EXIT.notVerified} "$rel: SHA-256 differs from the store's"
    fi
    case "$code" in 403) fail ${BOX_EXIT.denied} "$rel: the store refused (403: the URL expired?)";; 404) fail ${BOX_EXIT.usage} "$rel: not in the store";; esac
    [ $n -lt ${attempts} ] || fail ${BOX_EXIT.network} "$rel: download failed after $n attempts (HTTP $code)"
    sleep ${pause}
  done
done < "$grant"
`;
}
