// Types of links.mjs, for the tests that import it.
export declare const REPOSITORY: string | undefined
export declare const TAG: string
export declare function deployUrl(template: string): string
export declare function c3Command(template: string): string
