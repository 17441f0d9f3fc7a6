package example.base;

public class Circle extends Shape {}
