package example.extra;

public class Left extends Part {}
