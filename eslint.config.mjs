import tseslint from 'typescript-eslint';

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
    rules: { 'no-restricted-imports': ['error', { paths: forbiddenInPure, patterns: [{ group: ['../remote/*', '../extension/*', '../cli/*'], message: 'core/webview must not import adapters.' }] }] },
  },
  {
    files: ['src/remote/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [{ name: 'vscode', message: 'src/remote is Node only: never vscode.' }], patterns: [{ group: ['../app/*', '../../app/*', '../extension/*', '../../extension/*', '../cli/*', '../../cli/*'], message: 'src/remote is below src/app and the front ends.' }] }] },
  },
  {
    files: ['src/app/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [{ name: 'vscode', message: 'src/app serves both front ends: never vscode.' }], patterns: [{ group: ['../extension/*', '../cli/*', '../webview/*'], message: 'src/app must not import a front end.' }] }] },
  },
  {
    // Box and platform text reaches notifications: every one goes through src/extension/notify.ts,
    // which renders it with core/text's forNotification (no clickable links, no controls).
    files: ['src/extension/**/*.ts'],
    ignores: ['src/extension/notify.ts'],
    rules: {
      'no-restricted-syntax': ['error', { selector: 'MemberExpression[property.name=/^show(Error|Warning|Information)Message$/]', message: 'Use showError/showWarning/showInfo from src/extension/notify.ts: it renders box text inert (no command: links).' }],
    },
  },
);
