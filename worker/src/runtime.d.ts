// The workerd built-in module this Worker imports (ambient declaration;
// @cloudflare/workers-types is not a dependency).
declare module 'cloudflare:workers' {
  export class DurableObject<Env = unknown> {
    constructor(ctx: import('./env.js').DurableObjectState, env: Env);
    protected ctx: import('./env.js').DurableObjectState;
    protected env: Env;
  }
}
