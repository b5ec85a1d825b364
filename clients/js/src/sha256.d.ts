export declare function sha256Sync(data: Uint8Array | ArrayLike<number>): Uint8Array;
export declare function hmacSha256Sync(key: Uint8Array | ArrayLike<number>, message: Uint8Array): Uint8Array;
