// Moved to view/present.ts (the view's text helpers live in src/extension/view/); this path still exports every name.
export * from './view/present';
