package com.example.scaling;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A test-only application, as an application using the starter would declare it.
 */
@SpringBootApplication
public class ScalingApplication {

}
