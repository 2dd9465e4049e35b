// Reads a captured environment.yml as YAML for core's check (checkCondaEnvironment in
// src/core/guards/environment.ts). The `yaml` package's Node build needs Node built-ins
// (process, buffer), so the parse lives here, not in core. Every scalar is read as a string
// (the failsafe schema: no type guessing), and whatever cannot be checked as plain data is
// refused with its line: anchors, aliases, tags, merge keys, directives, several documents,
// block and multi-line scalars, non-scalar keys, deep nesting, parse errors. The nesting is
// measured before the parser runs: a file of a few hundred KB of "[" takes the parser seconds
// and a gigabyte, and its pretty error messages can exhaust memory outright.
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseAllDocuments, type Node as YNode } from 'yaml';
import { checkCondaEnvironment, MAX_ENVIRONMENT_YML_CHARS, yamlReasonEnglish, type ParsedYaml, type RequirementProblem, type YamlNode, type YamlReason } from '../../core/guards/environment';

/** Flow brackets open at once, and block indentation (columns, "- " counted), beyond which a file is refused unparsed. */
const MAX_FLOW_DEPTH = 8;
const MAX_INDENT = 48;
const MAX_TREE_DEPTH = 12;

class Refusal extends Error {
  readonly text: string;
  constructor(
    readonly line: number,
    readonly reason: YamlReason,
  ) {
    super(yamlReasonEnglish(reason));
    this.text = this.message;
  }
}

/** An unsupportedYaml result: the reason's English as `text`, the reason beside it. */
const unsupported = (line: number, reason: YamlReason): ParsedYaml => ({ ok: false, kind: 'unsupportedYaml', line, text: yamlReasonEnglish(reason), reason });

/** Flow nesting and indentation, outside quotes and comments; linear, before any parse. */
function prescan(raw: string): Refusal | undefined {
  let depth = 0;
  let line = 1;
  let quote: '"' | "'" | null = null;
  let comment = false;
  let lineStart = true;
  let indent = 0;
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i]!;
    if (ch === '\n') {
      line++;
      // A quoted value never spans lines here (conda writes none): counting on is the safe side.
      quote = null;
      comment = false;
      lineStart = true;
      indent = 0;
      continue;
    }
    if (comment) continue;
    if (lineStart) {
      if (ch === ' ' || (ch === '-' && raw[i + 1] === ' ')) {
        indent++;
        if (indent > MAX_INDENT) return new Refusal(line, { code: 'nesting-columns', max: MAX_INDENT });
        continue;
      }
      if (ch === '\t') return new Refusal(line, { code: 'tab-indent' });
      lineStart = false;
    }
    if (quote) {
      if (quote === '"' && ch === '\\') i++;
      else if (ch === quote) quote = null;
      continue;
    }
    // A quote opens a scalar only where a token starts (not the one in "don't").
    if ((ch === '"' || ch === "'") && (i === 0 || /[\s[{,:]/.test(raw[i - 1]!))) quote = ch;
    else if (ch === '#' && (i === 0 || /\s/.test(raw[i - 1]!))) comment = true;
    else if (ch === '[' || ch === '{') {
      if (++depth > MAX_FLOW_DEPTH) return new Refusal(line, { code: 'flow-depth', max: MAX_FLOW_DEPTH });
    } else if ((ch === ']' || ch === '}') && depth > 0) depth--;
    else if (ch === '%' && i > 0 && raw[i - 1] === '\n') return new Refusal(line, { code: 'directive' });
  }
  if (raw.startsWith('%')) return new Refusal(1, { code: 'directive' });
  return undefined;
}

/** Parses environment.yml into plain data with lines, or says why it cannot be checked. Never throws. */
export function readEnvironmentYaml(raw: string): ParsedYaml {
  if (raw.length > MAX_ENVIRONMENT_YML_CHARS) return { ok: false, kind: 'tooLarge', line: 0, text: `${raw.length} characters` };
  const early = prescan(raw);
  if (early) return unsupported(early.line, early.reason);
  const lc = new LineCounter();
  const lineOf = (n: { range?: [number, number, number] | null } | null | undefined) => (n?.range ? lc.linePos(n.range[0]).line : 0);
  try {
    const docs = parseAllDocuments(raw, { lineCounter: lc, schema: 'failsafe', prettyErrors: false, uniqueKeys: true, merge: false, strict: true });
    if (docs.length === 0) return { ok: true, root: null };
    if (docs.length > 1) return unsupported(lineOf(docs[1]!.contents), { code: 'documents', count: docs.length });
    const doc = docs[0]!;
    const err = doc.errors[0] ?? doc.warnings[0];
    if (err) return unsupported(err.linePos?.[0].line ?? lc.linePos(err.pos[0]).line, { code: 'yaml-error', message: err.message.split('\n')[0]! });
    if (doc.directives?.yaml.explicit) return unsupported(1, { code: 'directive' });
    const convert = (n: unknown, depth: number): YamlNode => {
      const line = lineOf(n as YNode | null);
      if (n === null || n === undefined) return { kind: 'scalar', value: null, line };
      if (depth > MAX_TREE_DEPTH) throw new Refusal(line, { code: 'tree-depth', max: MAX_TREE_DEPTH });
      if (isAlias(n)) throw new Refusal(line, { code: 'alias', name: n.source });
      const node = n as YNode;
      if (node.anchor) throw new Refusal(line, { code: 'anchor', name: node.anchor });
      if (node.tag) throw new Refusal(line, { code: 'tag', tag: node.tag });
      if (isScalar(node)) {
        if (node.type === 'BLOCK_LITERAL' || node.type === 'BLOCK_FOLDED') throw new Refusal(line, { code: 'block-scalar' });
        const value = node.value === null || node.value === undefined ? null : String(node.value);
        if (value !== null && /[\x00-\x1f\x7f-\x9f\u2028\u2029]/.test(value)) throw new Refusal(line, { code: 'control-value' });
        return { kind: 'scalar', value, line };
      }
      if (isSeq(node)) return { kind: 'seq', line, items: node.items.map((i) => convert(i, depth + 1)) };
      if (isMap(node)) {
        const entries = node.items.map((pair) => {
          const k = pair.key;
          if (isAlias(k)) throw new Refusal(lineOf(k), { code: 'alias', name: k.source });
          if (!isScalar(k) || k.value === null || typeof k.value === 'object') throw new Refusal(lineOf(k as YNode | null) || line, { code: 'key-not-string' });
          if ((k as YNode).anchor || (k as YNode).tag) throw new Refusal(lineOf(k), { code: 'key-anchor-tag' });
          const key = String(k.value);
          if (key === '<<') throw new Refusal(lineOf(k), { code: 'merge-key' });
          if (/[\x00-\x1f\x7f-\x9f\u2028\u2029]/.test(key)) throw new Refusal(lineOf(k), { code: 'key-control' });
          return { key, line: lineOf(k), value: convert(pair.value, depth + 1) };
        });
        return { kind: 'map', line, entries };
      }
      throw new Refusal(line, { code: 'unknown-node' });
    };
    return { ok: true, root: convert(doc.contents, 0) };
  } catch (e) {
    if (e instanceof Refusal) return unsupported(e.line, e.reason);
    return unsupported(0, { code: 'yaml-error', message: (e as Error).message.split('\n')[0]! });
  }
}

/** The problems core finds in environment.yml as text (parse and check in one). */
export function checkEnvironmentYml(raw: string, opts: { allowPipOptions?: boolean } = {}): RequirementProblem[] {
  return checkCondaEnvironment(readEnvironmentYaml(raw), opts).problems;
}
