// The console's bundled script, provided at build time by scripts/inspector-ui.ts (tsup and vitest plugins).
declare module 'virtual:pix-usdt-inspector-ui' {
  const script: string;
  export default script;
}
