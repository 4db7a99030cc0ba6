/// The Dexcom G7, ONE+ and Stelo: one protocol (docs/protocols/dexcom-g7.md).
public enum DexcomG7 {}
