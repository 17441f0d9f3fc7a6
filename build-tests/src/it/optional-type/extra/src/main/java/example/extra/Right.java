package example.extra;

public class Right extends Part {}
