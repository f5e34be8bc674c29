// The V8 flags did not take full effect for modules loaded before them (set-v8-flags.ts): they are
// set by this file's one static import, and everything else is imported after it.
import './platform/runtime/set-v8-flags.js';

const { runRoles } = await import('./app/run-roles.js');
runRoles();
