export function main(argv: string[]): Promise<void>;
