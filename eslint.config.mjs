import tseslint from 'typescript-eslint';
import regexp from 'eslint-plugin-regexp';

const nodeBuiltins = ['fs', 'net', 'child_process', 'os', 'path', 'crypto', 'http', 'https', 'tls', 'dgram', 'stream', 'readline', 'worker_threads', 'zlib', 'util', 'events', 'process', 'buffer'];
const forbiddenInPure = [
  { name: 'vscode', message: 'src/core and src/webview must run in Node and the browser: no vscode.' },
  { name: 'ssh2', message: 'src/core and src/webview are pure: SSH lives in src/remote.' },
  ...nodeBuiltins.flatMap((m) => [
    { name: m, message: `src/core and src/webview are pure: no Node built-in "${m}".` },
    { name: `node:${m}`, message: `src/core and src/webview are pure: no Node built-in "${m}".` },
  ]),
];

export default tseslint.config(
  { ignores: ['**/*.cjs', 'dist/**', 'out/**', 'node_modules/**', '.e2e/**', 'test-output/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src/core/**/*.ts', 'src/webview/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: forbiddenInPure, patterns: [{ group: ['**/remote', '**/remote/**', '**/extension', '**/extension/**', '**/cli', '**/cli/**', '**/app', '**/app/**'], message: 'core/webview are the bottom layer: they import no adapter, no app service, no front end (at any depth).' }] }] },
  },
  {
    files: ['src/remote/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [{ name: 'vscode', message: 'src/remote is Node only: never vscode.' }], patterns: [{ group: ['**/app', '**/app/**', '**/extension', '**/extension/**', '**/cli', '**/cli/**', '**/webview', '**/webview/**'], message: 'src/remote is below src/app and the front ends (at any depth).' }] }] },
  },
  {
    files: ['src/app/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [{ name: 'vscode', message: 'src/app serves both front ends: never vscode.' }], patterns: [{ group: ['**/extension', '**/extension/**', '**/cli', '**/cli/**', '**/webview', '**/webview/**'], message: 'src/app must not import a front end (at any depth).' }] }] },
  },
  {
    // Box and platform text reaches notifications: every one goes through src/extension/notify.ts,
    // which renders it with core/text's forNotification (no clickable links, no controls).
    files: ['src/extension/**/*.ts'],
    ignores: ['src/extension/notify.ts'],
    rules: {
      'no-restricted-syntax': ['error', { selector: 'MemberExpression[property.name=/^show(Error|Warning|Information)Message$/]', message: 'Use showError/showWarning/showInfo from src/extension/notify.ts: it renders box text inert (no command: links).' },
        { selector: 'MemberExpression[object.property.name="ProgressLocation"][property.name="Notification"]', message: 'Use withNotificationProgress from src/extension/notify.ts: a progress notification renders its title and messages like any notification.' },
      ],
    },
  },
  {
    // Box and platform text is untrusted: every pattern that reads it must run in linear time
    // (a log line of 3000 spaces once took 37 s in the progress parser). Lines are also capped
    // to core/boxLines' MAX_BOX_LINE before a parser sees them.
    files: [
      'src/core/boxLines.ts', 'src/core/progress/**/*.ts', 'src/core/smi/**/*.ts', 'src/core/doctor*.ts', 'src/core/probe.ts',
      'src/core/cards.ts', 'src/core/rentedCard.ts', 'src/core/text.ts', 'src/core/compat/**/*.ts', 'src/core/guards/**/*.ts',
      'src/core/platforms/**/*.ts', 'src/core/startNow.ts', 'src/core/task/**/*.ts', 'src/remote/probe.ts', 'src/remote/jobs*.ts', 'src/remote/classify.ts', 'src/remote/exec-channel.ts',
      'src/remote/platform.ts', 'src/remote/guards/**/*.ts', 'src/remote/sync/**/*.ts', 'src/app/jobs.ts', 'src/app/probe.ts',
      'src/app/environment.ts', 'src/app/runs/**/*.ts', 'src/app/platforms/**/*.ts', 'src/app/launch/**/*.ts', 'src/webview/monitor*.ts',
    ],
    plugins: { regexp },
    rules: { 'regexp/no-super-linear-backtracking': 'error', 'regexp/no-super-linear-move': 'error' },
  },
);
