// Trusted Types: the CSP says `require-trusted-types-for 'script'; trusted-types default`,
// so every string that reaches a script-loading or markup-parsing sink goes through the one
// "default" policy below. It lets through only same-origin script URLs (the page's own
// worker) and nothing else: assigning a string to innerHTML, calling document.write or
// loading a script from anywhere but this origin throws.

interface TrustedTypePolicyFactoryLike {
  createPolicy(name: string, rules: { createScriptURL?: (input: string) => string }): unknown;
}

export function installTrustedTypesPolicy(win: Window = window): void {
  const factory = (win as unknown as { trustedTypes?: TrustedTypePolicyFactoryLike }).trustedTypes;
  if (!factory) return; // browsers without Trusted Types still have the rest of the CSP
  factory.createPolicy('default', {
    createScriptURL(input: string): string {
      const url = new URL(input, win.location.href);
      if (url.origin !== win.location.origin) {
        throw new TypeError(`heapscope: refusing to load a script from another origin: ${url.origin}`);
      }
      return url.href;
    },
  });
}
