// The V8 flags apply only to code loaded after they are set (set-v8-flags.ts), so they are set by
// this file's one static import, and everything else is imported after it.
import './platform/runtime/set-v8-flags.js';

const { runRoles } = await import('./app/run-roles.js');
runRoles();
