package example.extra;

public class Part {}
