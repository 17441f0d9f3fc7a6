package example.base;

public class Shape {}
