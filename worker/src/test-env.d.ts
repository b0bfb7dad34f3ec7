// The one binding `wrangler types` cannot see (worker-configuration.d.ts
// is generated from wrangler.toml and .dev.vars.example): the tests'
// switch for src/test-hooks.js, never set in a deployment.
declare namespace Cloudflare {
  interface Env {
    /** Tests only: "1" enables the fault injection of src/test-hooks.js. */
    MEMDEX_TEST_HOOKS?: string;
  }
}
