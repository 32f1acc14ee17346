// The few Vite features the page uses, typed without pulling in vite/client's globals.
declare module '*?worker&url' {
  const url: string;
  export default url;
}
declare module '*?url' {
  const url: string;
  export default url;
}
interface ImportMeta {
  readonly env: { readonly DEV: boolean; readonly PROD: boolean };
}
