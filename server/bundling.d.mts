// Types of server/bundling.mjs for the TypeScript that imports it (adapters/worker-thread.ts, specs).
export declare const ownImportMetaUrl: { readonly define: Record<string, string>; readonly plugins: readonly unknown[] };
export declare function writableCacheDir(): URL;
export declare function cachedBundle(entry: URL, name: string): Promise<string>;
export declare function currentBundle(entry: URL, name: string): string | null;
export declare function cachedCodeSync(entry: URL, name: string, build: () => { code: string; inputs: readonly string[] }): string;
export declare function bundleName(entry: URL): string;
export declare function removeOldBuilds(cache: string, name: string, keep: string): void;
