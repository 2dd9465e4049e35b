// Why a pasted login cannot be read: the problem codes with the facts they name, and their
// English (the CLI's, the log's, and TargetParse's `problem`). The words in both languages are
// app/remoteWords.ts's; the parser is target.ts.

/** Where in the pasted text a problem sits (the English message's prefix). */
export type LoginPlace = 'target' | 'login-command' | 'url' | 'flag-p' | 'option-port' | 'option-hostname' | 'config';

/**
 * Why a login cannot be read, as a code and the facts it names; the front ends put it into
 * words (`problem` is the English). Text from the paste (`text`, `host`, `user`, …) is the
 * user's own, unbounded: a renderer cuts and escapes it.
 */
export type LoginProblem =
  | { code: 'login-not-text' }
  | { code: 'login-empty' }
  | { code: 'login-control-chars' }
  | { code: 'login-not-a-target'; text: string }
  | { code: 'login-quote-unbalanced'; quote: '"' | "'" }
  | { code: 'login-port-range'; place: LoginPlace; port: string }
  | { code: 'login-password-inside' }
  | { code: 'login-user-invalid'; place?: LoginPlace; user: string }
  | { code: 'login-host-empty'; place?: LoginPlace }
  | { code: 'login-host-invalid'; place?: LoginPlace; host: string }
  | { code: 'login-url-invalid'; text: string }
  | { code: 'login-url-path'; text: string }
  | { code: 'login-url-user-encoding'; text: string }
  | { code: 'login-option-form'; option: string }
  | { code: 'login-flag-unknown'; flag: string }
  | { code: 'login-flag-value'; flag: string }
  | { code: 'login-jump-host' }
  | { code: 'login-no-host' };

export type LoginProblemCode = LoginProblem['code'];

const EXPECTED = 'expected ssh://user@host:port, a pasted ssh login command, or a Host from ~/.ssh/config';

function placeEnglish(p: LoginPlace): string {
  return { target: 'target', 'login-command': 'login command', url: 'ssh:// address', 'flag-p': '-p', 'option-port': '-o Port', 'option-hostname': '-o HostName', config: '~/.ssh/config' }[p];
}

/** The English message of a login problem (the CLI's, the log's, and `problem`). */
export function loginProblemEnglish(r: LoginProblem): string {
  const at = (p: LoginPlace | undefined, m: string) => (p ? `${placeEnglish(p)}: ${m}` : m);
  switch (r.code) {
    case 'login-not-text':
      return 'the target must be text';
    case 'login-empty':
      return `no target given (${EXPECTED})`;
    case 'login-control-chars':
      return 'the target contains control characters';
    case 'login-not-a-target':
      return `"${r.text}" is not a target (${EXPECTED})`;
    case 'login-quote-unbalanced':
      return `unbalanced ${r.quote} quote in the login command`;
    case 'login-port-range':
      return at(r.place, `the port must be a number from 1 to 65535, got "${r.port}"`);
    case 'login-password-inside':
      return 'do not put a password in the target: set GPU_RENT_PASSWORD or answer the prompt';
    case 'login-user-invalid':
      return at(r.place, `"${r.user}" is not a valid user name`);
    case 'login-host-empty':
      return at(r.place, 'the host name is empty');
    case 'login-host-invalid':
      return at(r.place, `"${r.host}" is not a valid host name or address`);
    case 'login-url-invalid':
      return `"${r.text}" is not a valid ssh:// address (expected ssh://user@host:port)`;
    case 'login-url-path':
      return `ssh:// address "${r.text}" has a path or query; expected ssh://user@host:port`;
    case 'login-url-user-encoding':
      return `the user name in "${r.text}" is not valid percent-encoding`;
    case 'login-option-form':
      return `-o "${r.option}" is not an option of the form Key=Value`;
    case 'login-flag-unknown':
      return `unknown ssh option -${r.flag} in the login command`;
    case 'login-flag-value':
      return `ssh option -${r.flag} needs a value`;
    case 'login-jump-host':
      return 'jump hosts (-J) are not supported yet: connect to the box directly';
    case 'login-no-host':
      return 'the login command names no host (expected e.g. ssh -p 12345 root@host)';
  }
}
