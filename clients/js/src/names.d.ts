/** suspect id -> [name, trait code] */
export declare const SUSPECTS: Record<string, [string, string]>;
export declare const SUSPECT_IDS: string[];
export declare function suspectName(id: string): string;
export declare const BLOCK_NAMES: string[];
export declare const HQ_NAME: "Police HQ";
export declare const EVENT_IDS: string[];
export declare const FORCE_CARDS: string[];
export declare const ABILITY_IDS: string[];
export declare const ROLE_IDS: string[];
