package example.base;

public class Square extends Shape {}
