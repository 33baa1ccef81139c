// placeholder during the rewrite
export {};
