/**
 * The console's script, bundled by the package's build (scripts/inspector-ui.ts: preact + htm,
 * minified) and inlined here as a string. Only the inspector's handler imports this module, and
 * dynamically, so the script is a chunk of its own that no client entry reaches.
 * @module
 */
import script from 'virtual:pix-usdt-inspector-ui';

/** The console's browser script. */
export const UI_SCRIPT: string = script;
